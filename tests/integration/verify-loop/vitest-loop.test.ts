// The verification gate inside the real loop, on a TypeScript project with one failing vitest
// test (tests/fixtures/verify/ts-project) run by the repository's own vitest: the gate runs
// after a loop that changed files, the failing test is named in the next loop's context, a
// completion claim does not end the run while the test fails, the run converges once the fake
// agent fixes the code, and the same failures three loops running halt it (exit 2). The session
// record is read back with its schema after every loop.

import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopEvents, type LoopEventMap } from '../../../lib/loop/events.js';
import type { RunRecord } from '../../../lib/run-record/record-schema.js';
import type { FakeScenario } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC, loopProject, type LoopProject } from '../../helpers/loop-harness.js';
import { loopContextIn, fixtureFiles, readOnlyRunRecord, REPO_VITEST_RUN } from './verify-loop-fixture.js';

const FIXTURE = fixtureFiles('ts-project');
const SUM_FIXED = FIXTURE['sum.ts']!.replace('a - b', 'a + b');
const FAILING_TEST = 'sum.spec.ts > sum > adds two numbers';
const PLAN = '# Fix Plan\n- [ ] make sum add two numbers\n';
const working = { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false };
const done = { STATUS: 'COMPLETE', EXIT_SIGNAL: true };

let current: LoopProject | undefined;
afterEach(() => {
  current?.cleanup();
  current = undefined;
});

function setup(scenario: FakeScenario): LoopProject {
  current = loopProject(scenario, {
    files: { ...FIXTURE, '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="${REPO_VITEST_RUN}"\n`, '.ralph/fix_plan.md': PLAN },
  });
  return current;
}

/** Gate results as they come, and the session record (schema-checked) after every loop. */
function watch(p: LoopProject) {
  const events = new LoopEvents();
  const gates: Array<LoopEventMap['verification:completed'] & { attemptsOnDisk: number; lastOnDisk?: string }> = [];
  const afterLoop: RunRecord[] = [];
  events.on('verification:completed', (e) => {
    const onDisk = readOnlyRunRecord(p.project.dir).attempts;
    gates.push({ ...e, attemptsOnDisk: onDisk.length, lastOnDisk: onDisk.at(-1)?.state });
  });
  events.on('iteration:completed', () => afterLoop.push(readOnlyRunRecord(p.project.dir)));
  return { events, gates, afterLoop };
}

describe('the verification gate in the loop (vitest project)', () => {
  it('feeds the failure to the next loop, blocks EXIT_SIGNAL while the test fails, and converges when it passes', async () => {
    const p = setup({
      calls: [
        { writeFiles: { 'NOTES.md': 'Looked at sum.\n' }, statusBlock: working },
        { writeFiles: { 'NOTES.md': 'sum looks right to me.\n' }, tickFixPlan: 'all', statusBlock: done },
        { writeFiles: { 'sum.ts': SUM_FIXED }, statusBlock: done },
        { resultText: 'never reached' },
      ],
    });
    const w = watch(p);
    const result = await p.run({}, { events: w.events });

    expect(result.exitCode).toBe(0);
    const runs = p.fake.runs();
    expect(runs).toHaveLength(3);
    // The gate ran after the first loop (it changed files) and after each one since.
    expect(w.gates.map((g) => [g.loop, g.status, g.outcome])).toEqual([
      [1, 'failed', 'stuck'],
      [2, 'failed', 'stuck'],
      [3, 'passed', 'tests-passing'],
    ]);
    expect(w.gates[0]).toMatchObject({ passed: 1, failed: 1, failing: [FAILING_TEST] });
    // The failing test, by name and assertion, is in the next loops' context on stdin.
    expect(loopContextIn(runs[0]!.stdin)).not.toContain(FAILING_TEST);
    for (const run of runs.slice(1)) {
      expect(loopContextIn(run.stdin)).toContain(`- ${FAILING_TEST}: AssertionError: expected -1 to be 3`);
    }
    // Loop 2 ticked the plan and said EXIT_SIGNAL: true, but the test still failed: no exit.
    expect(result.logs.some((l) => /Completion claimed \(\w+\) but 1 verification failure\(s\) remain; continuing/.test(l))).toBe(true);
    expect(p.status()).toMatchObject({ status: 'completed', last_action: 'graceful_exit' });

    const record = readOnlyRunRecord(p.project.dir);
    expect(record.status).toBe('converged');
    expect(record.goal).toMatchObject({ type: 'checklist+tests', test_command: REPO_VITEST_RUN });
    expect(record.attempts.map((a) => [a.loop, a.state, a.outcome, a.agent_result])).toEqual([
      [1, 'finished', 'stuck', 'ok'],
      [2, 'finished', 'stuck', 'ok'],
      [3, 'finished', 'tests-passing', 'ok'],
    ]);
    expect(record.attempts[2]!.files_changed).toEqual(['sum.ts']);
    expect(record.last_verification).toMatchObject({ loop: 3, status: 'passed', passed: 2, failed: 0, same_failures_count: 0 });
    expect(record.gap).toMatchObject({ current: 0, trend: 'improving' });
    expect(record.observations.filter((o) => o.source === 'test').map((o) => [o.loop, o.exit_code])).toEqual([
      [1, 1],
      [2, 1],
      [3, 0],
    ]);
    expect(record.observations.filter((o) => o.source === 'agent')).toHaveLength(3);

    // After every loop the record on disk is valid and holds that loop's finished attempt...
    expect(w.afterLoop.map((r) => r.attempts.map((a) => `${a.loop}:${a.state}`))).toEqual([
      ['1:finished'],
      ['1:finished', '2:finished'],
      ['1:finished', '2:finished', '3:finished'],
    ]);
    // ...and loop N's attempt is on disk from the start of its call (so a kill counts the call),
    // still running while its gate runs, finished once the loop's outcome is known.
    expect(w.gates.map((g) => [g.attemptsOnDisk, g.lastOnDisk])).toEqual([
      [1, 'running'],
      [2, 'running'],
      [3, 'running'],
    ]);
  });

  it('halts with exit 2 naming the test when the same failure lasts three loops', async () => {
    const p = setup({
      calls: [
        { writeFiles: { 'NOTES.md': 'Tried one thing.\n' }, statusBlock: working },
        { writeFiles: { 'NOTES.md': 'Tried another.\n' }, statusBlock: working },
        // Changes nothing: the gate does not run again, and the unchanged failure counts a third time.
        { resultText: 'Nothing else to try.', statusBlock: working },
        { resultText: 'never reached' },
      ],
    });
    const w = watch(p);
    const result = await p.run({}, { events: w.events });

    expect(result.exitCode).toBe(2);
    expect(p.fake.runs()).toHaveLength(3);
    expect(w.gates.map((g) => g.loop)).toEqual([1, 2]);
    const reason = `Same failing tests in 3 consecutive loops: ${FAILING_TEST}`;
    expect(result.logs).toContain(`Circuit breaker opened: ${reason}`);
    expect(p.status()).toMatchObject({ status: 'halted', exit_reason: 'stagnation_detected', last_action: 'circuit_breaker_open' });
    const breaker = JSON.parse(readFileSync(p.project.path('.ralph/.circuit_breaker_state'), 'utf8')) as Record<string, unknown>;
    expect(breaker).toMatchObject({ state: 'OPEN', reason, current_loop: 3 });
    expect(result.stderr.text).toContain('EXECUTION HALTED');

    const record = readOnlyRunRecord(p.project.dir);
    expect(record.status).toBe('escalated');
    expect(record.status_history.at(-1)!.reason).toContain(FAILING_TEST);
    expect(record.attempts.map((a) => a.outcome)).toEqual(['stuck', 'stuck', 'stuck']);
    expect(w.afterLoop).toHaveLength(3);
  });
});
