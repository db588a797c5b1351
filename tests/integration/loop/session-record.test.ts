// The iteration session record (.ralph/sessions/<run-id>.json) kept by the real loop: one
// attempt per agent call, a run interrupted mid-loop resumes at that loop with the earlier
// attempts kept and told to the agent, --fresh starts over, `ralph --status --json` shows the
// summary, a dry run keeps no record, and with no test command the gate costs nothing.

import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStatus } from '../../../lib/cli/ralph/status-json.js';
import { LoopEvents, type LoopEventMap } from '../../../lib/loop/events.js';
import { runProject } from '../../../lib/loop/run-project.js';
import type { Deps } from '../../../lib/platform/deps.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { createRedactor } from '../../../lib/text/redaction.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { captureOutput, FAST_LOOP_RC, loopProject, type LoopProject } from '../../helpers/loop-harness.js';
import { GIT_TEST_ENV } from '../../helpers/tmp-project.js';
import type { FakeScenario } from '../../helpers/fake-claude.js';
import { loopContextIn, readOnlyRunRecord, readRunRecords } from '../verify-loop/verify-loop-fixture.js';
import { projectView } from '../../helpers/project-view.js';

const FAKE_API_KEY = 'sk-ant-fake-test-key'; // what withFakeClaude puts in ANTHROPIC_API_KEY
const PLAN = '# Fix Plan\n- [ ] one\n- [ ] two\n- [ ] three\n';
const work = (n: number) => ({
  tickFixPlan: 1,
  writeFiles: { [`src/part${n}.ts`]: `export const part${n} = ${n};\n` },
  statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
});

let current: LoopProject | undefined;
afterEach(() => {
  current?.cleanup();
  current = undefined;
});

function setup(scenario: FakeScenario, files: Record<string, string> = {}): LoopProject {
  current = loopProject(scenario, { files: { '.ralph/fix_plan.md': PLAN, ...files } });
  return current;
}

/** Send SIGTERM once the fake has started serving call `call` (its prompt is in the call log). */
function interruptAtCall(p: LoopProject, call: number): LoopEvents {
  const events = new LoopEvents();
  events.on('agent:started', () => {
    const timer = setInterval(() => {
      if (p.fake.runs().length < call) return;
      clearInterval(timer);
      p.signals.emit('SIGTERM', 'SIGTERM');
    }, 20);
    events.on('agent:finished', () => clearInterval(timer));
  });
  return events;
}

describe('session record kept by the loop', () => {
  it('records each loop, converges with the plan, and shows in ralph --status --json; no test command costs nothing', async () => {
    // The agent's reply is kept in the record, with secrets from the environment masked.
    const p = setup({ calls: [{ ...work(1), resultText: `Used ${FAKE_API_KEY} to call the API.` }, work(2), work(3)] });
    const events = new LoopEvents();
    const gateRuns: unknown[] = [];
    events.on('verification:started', (e) => gateRuns.push(e));
    const result = await p.run({}, { events });

    expect(result.exitCode).toBe(0);
    expect(result.logs).toContain('Verification gate: no test command found (set TEST_COMMAND in .ralphrc); completion is not verified');
    expect(gateRuns).toEqual([]);
    const record = readOnlyRunRecord(p.project.dir);
    expect(result.logs).toContain(`Starting a new run (no earlier run recorded): run ${record.run_id}`);
    expect(record).toMatchObject({ status: 'converged', goal: { type: 'checklist', open_items_at_start: 3, test_command: null }, last_verification: null });
    // fix_plan.md ticks are not the project's content: one changed file per loop.
    expect(record.attempts.map((a) => [a.loop, a.state, a.outcome, a.files_changed_count])).toEqual([
      [1, 'finished', 'unverified', 1],
      [2, 'finished', 'unverified', 1],
      [3, 'finished', 'unverified', 1],
    ]);
    expect(record.attempts[0]!.tokens.input).toBeGreaterThan(0);
    expect(record.gap?.history.map((s) => s.open_items)).toEqual([2, 1, 0]);
    expect(record.observations.map((o) => [o.loop, o.source, o.exit_code])).toEqual([
      [1, 'agent', 0],
      [2, 'agent', 0],
      [3, 'agent', 0],
    ]);
    expect(record.observations[0]!.raw).toContain('Used [REDACTED] to call the API.');
    expect(record.attempts[0]!.action).toBe('Used [REDACTED] to call the API.');
    expect(JSON.stringify(record)).not.toContain(FAKE_API_KEY);

    expect(collectStatus(p.project.dir, projectView(p.project.dir)).session_record).toMatchObject({
      run_id: record.run_id,
      status: 'converged',
      attempts: 3,
      last_attempt: { loop: 3, state: 'finished' },
      gap_text: 'gap 0 (0 open items) ↓ improving',
    });
  });

  it('an interrupted run resumes at the loop it was in, with earlier attempts kept and told to the agent', async () => {
    const p = setup({ calls: [work(1), { hang: 'afterInit' }, work(2), work(3)] });
    const first = await p.run({}, { events: interruptAtCall(p, 2) });
    expect(first.exitCode).toBe(143);
    const interrupted = readOnlyRunRecord(p.project.dir);
    // An interrupt keeps the run active; the attempt it cut short is on disk as running.
    expect(interrupted.status).toBe('active');
    expect(interrupted.attempts.map((a) => `${a.loop}:${a.state}`)).toEqual(['1:finished', '2:running']);
    expect(collectStatus(p.project.dir, projectView(p.project.dir)).session_record).toMatchObject({
      status: 'active',
      last_attempt: { loop: 2, state: 'running' },
    });

    const events = new LoopEvents();
    const opened: Array<LoopEventMap['run:opened']> = [];
    events.on('run:opened', (e) => opened.push(e));
    const second = await p.run({}, { events });
    expect(second.exitCode).toBe(0);
    expect(opened).toEqual([{ runId: interrupted.run_id, resumed: true, nextLoop: 2, cutOff: [2] }]);
    expect(second.logs).toContain(
      `Resuming run ${interrupted.run_id} at loop 2 (1 earlier attempt kept; the attempt of loop 2 was cut off and runs again); use --fresh to start a new run`,
    );
    const runs = p.fake.runs();
    expect(runs).toHaveLength(4);
    const resumedContext = loopContextIn(runs[2]!.stdin);
    expect(resumedContext).toMatch(/^Loop #2\./);
    expect(resumedContext).toContain(`Earlier attempts in this run (${interrupted.run_id}), oldest first:`);
    expect(resumedContext).toContain('- Loop 2: cut off');
    // Told once: the next loop's context no longer carries it.
    expect(loopContextIn(runs[3]!.stdin)).toMatch(/^Loop #3\./);
    expect(loopContextIn(runs[3]!.stdin)).not.toContain('Earlier attempts');

    const record = readOnlyRunRecord(p.project.dir);
    expect(record.run_id).toBe(interrupted.run_id);
    expect(record.status).toBe('converged');
    expect(record.resumes).toEqual([{ at: expect.any(String), next_loop: 2, cut_off_loops: [2] }]);
    expect(record.attempts.map((a) => `${a.loop}:${a.state}`)).toEqual(['1:finished', '2:cut-off', '2:finished', '3:finished']);
    expect(record.attempts[0]).toEqual(interrupted.attempts[0]);
  });

  it('--fresh starts a new run at loop 1 and closes the unfinished one as superseded', async () => {
    // Each tick of the new run comes with a file of its own: measured new content.
    const p = setup({ calls: [work(1), { hang: 'afterInit' }, work(2), work(3)] });
    expect((await p.run({}, { events: interruptAtCall(p, 2) })).exitCode).toBe(143);
    const [old] = readRunRecords(p.project.dir);

    const result = await runFresh(p);
    expect(result.exitCode).toBe(0);
    const records = readRunRecords(p.project.dir);
    expect(records).toHaveLength(2);
    const closed = records.find((r) => r.run_id === old!.run_id)!;
    const fresh = records.find((r) => r.run_id !== old!.run_id)!;
    expect(result.logs).toContain(`Starting a new run (--fresh); unfinished run ${old!.run_id} (1 finished attempt) closed as failed: run ${fresh.run_id}`);
    expect(closed.status).toBe('failed');
    expect(closed.status_history.at(-1)!.reason).toBe('superseded: ralph --fresh started a new run');
    expect(fresh.attempts.map((a) => a.loop)).toEqual([1, 2]);
    expect(fresh.status).toBe('converged');
    expect(loopContextIn(p.fake.runs()[2]!.stdin)).toMatch(/^Loop #1\./);
    // The new run sorts after the old one even within the same second: it is the one shown.
    expect(collectStatus(p.project.dir, projectView(p.project.dir)).session_record).toMatchObject({ run_id: fresh.run_id });
  });

  it('a dry run keeps no session record', async () => {
    const p = setup({ calls: [{ resultText: 'never' }] });
    const result = await p.run({ DRY_RUN: true, MAX_LOOPS: 1 });
    expect(result.exitCode).toBe(0);
    expect(existsSync(p.project.path('.ralph/sessions')) ? readdirSync(p.project.path('.ralph/sessions')) : []).toEqual([]);
    expect(collectStatus(p.project.dir, projectView(p.project.dir)).session_record).toBeNull();
  });

  it('a resumed run re-runs the gate after its first loop even when that loop changed nothing', async () => {
    // A tiny node:test suite keeps this fast; one test fails until the fake fixes it.
    const files = {
      '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="node --test"\nMAX_LOOPS=5\n`,
      'math.test.mjs':
        "import test from 'node:test';\nimport assert from 'node:assert';\nimport { half } from './math.mjs';\ntest('half of four', () => assert.strictEqual(half(4), 2));\n",
      'math.mjs': 'export const half = (n) => n / 4;\n',
    };
    const p = setup(
      { calls: [{ writeFiles: { 'NOTES.md': 'a' } }, { hang: 'afterInit' }, { resultText: 'No change this time.' }], onExhausted: 'repeatLast' },
      files,
    );
    expect((await p.run({}, { events: interruptAtCall(p, 2) })).exitCode).toBe(143);
    expect(readOnlyRunRecord(p.project.dir).last_verification).toMatchObject({ loop: 1, status: 'failed', same_failures_count: 1 });

    // Fixed while ralph was down: the resumed run must not trust the old failing result.
    writeFileSync(p.project.path('math.mjs'), 'export const half = (n) => n / 2;\n');
    const events = new LoopEvents();
    const gates: Array<LoopEventMap['verification:completed']> = [];
    events.on('verification:completed', (e) => gates.push(e));
    // The run's two calls (the interrupted one too) count: --max-loops 3 leaves room for one more.
    const result = await p.run({ MAX_LOOPS: 3 }, { events });
    expect(result.exitCode).toBe(3);
    expect(gates.map((g) => [g.loop, g.status, g.outcome])).toEqual([[2, 'passed', 'tests-passing']]);
    // Its context still told the agent about the failure known when it stopped.
    expect(loopContextIn(p.fake.runs()[2]!.stdin)).toContain('Verification gate FAILED');
    expect(readOnlyRunRecord(p.project.dir).attempts.at(-1)).toMatchObject({ loop: 2, state: 'finished', outcome: 'tests-passing' });
  });
});

/** `ralph --fresh` in process (the harness's run() has no --fresh). */
async function runFresh(p: LoopProject): Promise<{ exitCode: number; logs: string[] }> {
  const logger = createMemoryLogger();
  const env = { ...process.env, ...GIT_TEST_ENV, ...p.fake.env };
  const deps: Deps = {
    clock: p.clock,
    env,
    cwd: p.project.dir,
    homeDir: p.project.dir,
    processRunner: nodeProcessRunner,
    logger,
    stdout: captureOutput(),
    stderr: captureOutput(),
    redact: createRedactor(env),
  };
  const exitCode = await runProject({ projectDir: p.project.dir, flags: {}, deps, fresh: true, signals: p.signals as never });
  return { exitCode, logs: logger.messages() };
}
