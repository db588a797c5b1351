// The stall guard above the breaker: ralph's loop (in the test's process,
// tests/helpers/ralph-in-process.ts) against a fake Claude that writes a
// new junk file every loop (new content, so the breaker stays closed) and never completes a
// plan item halts after CB_NO_PLAN_PROGRESS_THRESHOLD (default 8) loops with exit 2 `stalled`
// and a message that says what to do; an honest agent that needs 5 loops for each item runs
// to plan_complete.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCallScript } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runRalphInProcess } from '../../helpers/ralph-in-process.js';
import { ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const PLAN = '# Fix Plan\n- [ ] write the parser\n- [ ] write the printer\n';
const working = { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false };

const cleanups = useCleanups();

async function run(calls: FakeCallScript[], maxLoops: number) {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': PLAN }), { git: true });
  cleanups.push(() => project.cleanup());
  const fake = withFakeClaude({ calls });
  cleanups.push(() => fake.cleanup());
  const result = await runRalphInProcess(project.dir, ['--max-loops', String(maxLoops)], fake.env);
  const status = JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8')) as Record<string, unknown>;
  return { result, status, calls: fake.runs().length };
}

describe('the stall guard', () => {
  it('halts an agent that writes a junk file every loop after 8 loops: exit 2, stalled, what to do', async () => {
    const junk = Array.from({ length: 12 }, (_, i): FakeCallScript => ({ writeFiles: { [`junk-${i}.txt`]: `${i}\n` }, statusBlock: working }));
    const ran = await run(junk, 12);
    expect(ran.result.code, ran.result.stderr.slice(-1500)).toBe(2);
    expect(ran.calls).toBe(8);
    expect(ran.status.exit_reason).toBe('stalled');
    // Said once: the halt's message is logged where every stop's is, not again by the guard.
    expect(ran.result.stderr.split('Stalled: 8 loops in a row completed no fix_plan.md item and fixed no failing test')).toHaveLength(2);
    expect(ran.result.stderr).toContain('raise CB_NO_PLAN_PROGRESS_THRESHOLD');
  }, 180_000);

  it('keeps running an honest agent that needs 5 loops for each item, to plan_complete', async () => {
    const plans = ['# Fix Plan\n- [x] write the parser\n- [ ] write the printer\n', '# Fix Plan\n- [x] write the parser\n- [x] write the printer\n'];
    const honest = Array.from({ length: 10 }, (_, i): FakeCallScript => ({
      writeFiles: { [`src/step-${i}.ts`]: `export const step = ${i};\n`, ...(i % 5 === 4 ? { '.ralph/fix_plan.md': plans[(i - 4) / 5]! } : {}) },
      statusBlock: working,
    }));
    const ran = await run(honest, 12);
    expect(ran.result.code, ran.result.stderr.slice(-1500)).toBe(0);
    expect(ran.calls).toBe(10);
    expect(ran.status.exit_reason).toBe('plan_complete');
  }, 180_000);
});
