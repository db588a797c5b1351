// The session record's cost does not grow with the run: 30 loops of the fast fake agent leave a
// summary `.ralph/sessions/<run-id>.json` as large after loop 30 as after loop 5 (a few bytes of
// differing digits aside), while the attempts log gains one line per loop, appended.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopEvents } from '../../../lib/loop/events.js';
import { createFastAgent, FAULT_RC, type FastAgent } from '../../fault/fast-agent.js';
import { loopProject, type LoopProject } from '../../helpers/loop-harness.js';
import { readOnlyRunRecord } from '../verify-loop/verify-loop-fixture.js';

const LOOPS = 30;
/** Digits that differ between loops: durations, the changed file's name, token counts. */
const SLACK_BYTES = 24;

let p: LoopProject | undefined;
let agent: FastAgent | undefined;
afterEach(() => {
  p?.cleanup();
  agent?.cleanup();
});

describe('session record size', () => {
  it(`stays the same from loop 5 to loop ${LOOPS}; attempts are appended one line per loop`, async () => {
    agent = createFastAgent();
    p = loopProject({ calls: [] }, { files: { '.ralphrc': FAULT_RC, '.ralph/fix_plan.md': '# Fix Plan\n- [ ] keep going\n' } });
    const sessions = p.project.path('.ralph/sessions');
    const summaryFile = () => join(sessions, readdirSync(sessions).filter((n) => n.endsWith('.json'))[0]!);
    const logText = () =>
      readdirSync(sessions)
        .filter((n) => n.endsWith('.attempts.jsonl'))
        .map((n) => readFileSync(join(sessions, n), 'utf8'))
        .join('');
    const seen = new Map<number, { summary: number; log: string }>();
    let loops = 0;
    const events = new LoopEvents();
    events.on('iteration:completed', () => {
      loops++;
      if (loops === 5 || loops === LOOPS) seen.set(loops, { summary: statSync(summaryFile()).size, log: logText() });
    });

    // Thirty loops that tick nothing on purpose: the stall guard (8 by default) is turned off.
    const result = await p.run({ MAX_LOOPS: LOOPS, CB_NO_PLAN_PROGRESS_THRESHOLD: 0 }, { events, env: agent.env });

    expect(result.logs.join('\n')).toContain('max_loops_reached');
    expect(loops).toBe(LOOPS);
    const early = seen.get(5)!;
    const late = seen.get(LOOPS)!;
    expect(Math.abs(late.summary - early.summary)).toBeLessThanOrEqual(SLACK_BYTES);
    // Appended, never rewritten: the first five lines are still there byte for byte.
    expect(late.log.startsWith(early.log)).toBe(true);
    expect(late.log.split('\n').filter(Boolean)).toHaveLength(LOOPS);
    const record = readOnlyRunRecord(p.project.dir);
    expect(record.attempts.map((a) => a.loop)).toEqual(Array.from({ length: LOOPS }, (_, i) => i + 1));
    expect(record.attempts.every((a) => a.state === 'finished')).toBe(true);
  });
});
