// What one loop costs in state writes: every replace-by-rename is a new file, a rename and a
// flush of the old one on ext4, so a loop of the fast fake agent replaces each state file it
// changes once (the ledger too, though the call's tokens, spend and breaker each change it).

import { afterEach, describe, expect, it } from 'vitest';
import { LoopEvents } from '../../../lib/loop/events.js';
import { atomicWriteCount } from '../../../lib/state/atomic-write.js';
import { createFastAgent, FAULT_RC, type FastAgent } from '../../fault/fast-agent.js';
import { loopProject, type LoopProject } from '../../helpers/loop-harness.js';

const LOOPS = 6;

let p: LoopProject | undefined;
let agent: FastAgent | undefined;
afterEach(() => {
  p?.cleanup();
  agent?.cleanup();
});

describe('state writes per loop', () => {
  it('replaces each state file at most once between two agent calls, the ledger twice', async () => {
    agent = createFastAgent();
    p = loopProject({ calls: [] }, { files: { '.ralphrc': FAULT_RC, '.ralph/fix_plan.md': '# Fix Plan\n- [ ] keep going\n' } });
    // Writes from one agent's spawn to the next: the agent's own loop and the next loop's start.
    const atSpawn: number[] = [];
    const events = new LoopEvents();
    events.on('agent:started', () => atSpawn.push(atomicWriteCount()));

    const result = await p.run({ MAX_LOOPS: LOOPS, CB_NO_PLAN_PROGRESS_THRESHOLD: 0 }, { events, env: agent.env });

    expect(result.logs.join('\n')).toContain('max_loops_reached');
    const perLoop = atSpawn.slice(1).map((count, i) => count - atSpawn[i]!);
    expect(perLoop).toHaveLength(LOOPS - 1);
    // The lock (agent recorded, then cleared), the ledger (at the call's start and its end),
    // progress.json (executing, the agent's last tool, the verdict), status.json (ended,
    // started), the session record (attempt finished, next begun), .run_state (the call's
    // end and the next call's start), and once each: .call_count, .token_count,
    // .response_analysis, .circuit_breaker_state and the content ids seen in the run (this
    // agent makes new content every loop). (The first loop also writes what the run's first
    // call sets up.)
    for (const writes of perLoop.slice(1)) expect(writes).toBeLessThanOrEqual(18);
  });
});

describe('state writes at the start of a run', () => {
  it('replaces the ledger once as the run opens (its rate window, breaker and spend change it together), and no file of the git snapshot', async () => {
    agent = createFastAgent();
    p = loopProject({ calls: [] }, { files: { '.ralphrc': FAULT_RC, '.ralph/fix_plan.md': '# Fix Plan\n- [ ] keep going\n' } });
    const events = new LoopEvents();
    let atSpawn: number | undefined;
    events.on('agent:started', () => (atSpawn ??= atomicWriteCount()));
    const before = atomicWriteCount();
    const result = await p.run({ MAX_LOOPS: 1 }, { events, env: agent.env });
    expect(result.logs.join('\n')).toContain('max_loops_reached');
    // The ledger as the run opens, then its views (.call_count, .token_count, .last_reset,
    // .circuit_breaker_state with the content ids seen, .run_state); .ralph_session,
    // .exit_signals, the plan's memory (its file and its log); then the first call's start: the
    // ledger and .call_count and .run_state again, status.json, the session record, progress.json;
    // and the guarded files as the run found them, for a start after its death (guarded-baseline.ts).
    // The user's git configuration is copied into files created in place (git-user-config.ts).
    expect(atSpawn! - before).toBeLessThanOrEqual(18);
  });
});
