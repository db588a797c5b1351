import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initialSameFailures } from '../../../lib/verify/verification.js';
import { nextSameFailures } from '../../../lib/verify/same-failures.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { ATTEMPTS_HELD, RunRecorder } from '../../../lib/run-record/run-recorder.js';
import type { RunRecord } from '../../../lib/run-record/record-schema.js';
import { summarizeRunForStatus } from '../../../lib/run-record/status-summary.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import type { VerificationResult } from '../../../lib/verify/verification-result.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { readRunRecordFile } from '../../helpers/run-record-files.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

const failing: VerificationResult = {
  status: 'failed',
  passed: 1,
  failed: 1,
  skipped: 0,
  durationMs: 800,
  failures: [{ name: 'sum.spec.ts > sum > adds two numbers', message: 'expected -1 to be 3' }],
  failuresOmitted: 0,
  commands: [
    {
      command: 'npm test',
      role: 'test',
      status: 'failed',
      exitCode: 1,
      signal: null,
      timedOut: false,
      durationMs: 800,
      format: 'vitest-json',
      passed: 1,
      failed: 1,
      skipped: 0,
      failures: [{ name: 'sum.spec.ts > sum > adds two numbers', message: 'expected -1 to be 3' }],
      failuresOmitted: 0,
      output: 'FAIL',
    },
  ],
};

function setup() {
  project = tmpProject({ '.ralph/PROMPT.md': '# Fix the adder\n', '.ralph/fix_plan.md': '- [ ] make sum add\n- [x] set up\n' });
  const paths = ralphPaths(project.dir);
  const clock = fakeClock();
  const logger = createMemoryLogger();
  const open = (fresh = false, options: { saveEachChange?: boolean } = {}) =>
    RunRecorder.open({ paths, promptFile: paths.prompt, testCommand: 'npm test', fresh, state: { logger, clock }, logger, ...options });
  const onDisk = (runId: string): RunRecord => readRunRecordFile(join(paths.sessionsDir, `${runId}.json`));
  return { paths, clock, logger, open, onDisk };
}

function runLoop(recorder: RunRecorder, loop: number, clock: ReturnType<typeof fakeClock>) {
  recorder.beginAttempt(loop);
  clock.advance(60_000);
  recorder.recordVerification(loop, failing, nextSameFailures(initialSameFailures(), failing));
  recorder.finishAttempt({ loop, outcome: 'stuck', agentResult: 'ok', filesChanged: ['sum.ts'], openItems: 1, failingTests: 1 });
}

describe('RunRecorder', () => {
  it('starts a new run with its goal, and saves a valid record after every change', () => {
    const { open, onDisk, clock, logger } = setup();
    const recorder = open();
    const id = recorder.record.run_id;
    expect(recorder.firstLoop).toBe(1);
    expect(onDisk(id)).toMatchObject({
      status: 'pending',
      goal: { type: 'checklist+tests', summary: 'Complete 1 open fix_plan.md item: make sum add', test_command: 'npm test' },
    });
    expect(logger.messages('INFO')).toContain(`Starting a new run (no earlier run recorded): run ${id}`);
    recorder.activate();
    expect(onDisk(id).status).toBe('active');
    recorder.beginAttempt(1);
    expect(onDisk(id).attempts[0]!.state).toBe('running');
    clock.advance(1000);
    recorder.recordVerification(1, failing, nextSameFailures(initialSameFailures(), failing));
    recorder.observe({ loop: 1, source: 'agent', exitCode: 0, durationMs: 61_000, raw: 'Changed sum to add', data: { kind: 'ok' } });
    expect(onDisk(id).observations.map((o) => o.source)).toEqual(['test', 'agent']);
    recorder.finishAttempt({ loop: 1, outcome: 'stuck', agentResult: 'ok', filesChanged: ['sum.ts'], openItems: 1, failingTests: 1 });
    expect(onDisk(id)).toMatchObject({ attempts: [{ state: 'finished', outcome: 'stuck' }], gap: { current: 2, trend: 'stagnant' } });
    expect(recorder.end(0, 'verification gate passed')).toBe('converged');
    expect(onDisk(id).status).toBe('converged');
    expect(summarizeRunForStatus(onDisk(id))).toMatchObject({
      status: 'converged',
      attempts: 1,
      last_verification: { failed: 1, failing: ['sum.spec.ts > sum > adds two numbers'] },
      gap_text: 'gap 2 (1 open item + 1 failing test) → stagnant',
    });
  });

  it('continues an unfinished run after a crash: loop numbers go on, the cut-off attempt runs again, the decision is logged', () => {
    const { open, onDisk, clock, logger } = setup();
    const first = open();
    first.activate();
    runLoop(first, 1, clock);
    runLoop(first, 2, clock);
    first.beginAttempt(3); // killed here
    const id = first.record.run_id;

    const resumed = open();
    expect(resumed.record.run_id).toBe(id);
    expect(resumed.firstLoop).toBe(3);
    expect(logger.messages('INFO').at(-1)).toBe(
      `Resuming run ${id} at loop 3 (2 earlier attempts kept; the attempt of loop 3 was cut off and runs again); use --fresh to start a new run`,
    );
    expect(onDisk(id).attempts.map((a) => a.state)).toEqual(['finished', 'finished', 'cut-off']);
    expect(resumed.resumeContext(1000)).toContain('- Loop 3: cut off');
    resumed.beginAttempt(3);
    expect(onDisk(id).attempts.map((a) => [a.loop, a.state])).toEqual([
      [1, 'finished'],
      [2, 'finished'],
      [3, 'cut-off'],
      [3, 'running'],
    ]);
  });

  it('--fresh starts a new run at loop 1 with a new id and closes the old one', () => {
    const { open, onDisk, clock, paths } = setup();
    const first = open();
    first.activate();
    runLoop(first, 1, clock);
    clock.advance(1000);
    const fresh = open(true);
    expect(fresh.record.run_id).not.toBe(first.record.run_id);
    expect(fresh.firstLoop).toBe(1);
    expect(fresh.resumeContext(1000)).toBe('');
    expect(onDisk(first.record.run_id).status).toBe('failed');
    expect(readdirSync(paths.sessionsDir).filter((n) => n.endsWith('.json'))).toHaveLength(2);
  });

  it('a limit or an interrupt leaves the run active for the next ralph; the next run after an end is new', () => {
    const { open, onDisk, clock } = setup();
    const recorder = open();
    recorder.activate();
    runLoop(recorder, 1, clock);
    expect(recorder.end(3, 'max loops')).toBe('active');
    expect(recorder.end(130, 'interrupted')).toBe('active');
    expect(open().decision.kind).toBe('resume');
    expect(recorder.end(2, 'circuit breaker open')).toBe('escalated');
    expect(onDisk(recorder.record.run_id).status).toBe('escalated');
    clock.advance(1000);
    expect(open().decision).toMatchObject({ kind: 'new', why: 'last-run-ended' });
  });

  it('with saveEachChange: false, keeps changes in memory until flush() (the loop saves once per loop)', () => {
    const { paths, clock, onDisk, open } = setup();
    const recorder = open(false, { saveEachChange: false });
    const id = recorder.record.run_id;
    const file = join(paths.sessionsDir, `${id}.json`);
    recorder.activate();
    recorder.flush();
    // A new run reaches the disk with its first attempt, not before.
    expect(existsSync(file)).toBe(false);
    runLoop(recorder, 1, clock);
    expect(existsSync(file)).toBe(false);
    recorder.flush();
    expect(onDisk(id)).toMatchObject({ status: 'active', attempts: [{ loop: 1, state: 'finished' }], last_verification: { loop: 1 } });
    recorder.beginAttempt(2);
    expect(onDisk(id).attempts).toHaveLength(1);
    // end() always saves.
    expect(recorder.end(2, 'same failures')).toBe('escalated');
    expect(onDisk(id)).toMatchObject({ status: 'escalated', attempts: [{ state: 'finished' }, { loop: 2, state: 'running' }] });
  });

  it('with saveEachChange: false, a new run that ends before any attempt (a refused start) leaves no file', () => {
    const { paths, open } = setup();
    const recorder = open(false, { saveEachChange: false });
    recorder.activate();
    recorder.flush();
    expect(recorder.end(2, 'circuit breaker is OPEN')).toBe('escalated');
    expect(recorder.saved).toBe(false);
    expect(existsSync(join(paths.sessionsDir, `${recorder.record.run_id}.json`))).toBe(false);
  });

  it('masks secrets in what it keeps: agent output, command output and failure messages', () => {
    const { paths, clock, logger, onDisk } = setup();
    const redact = (text: string) => text.replaceAll('sk-secret-123', '[REDACTED]');
    const recorder = RunRecorder.open({ paths, promptFile: paths.prompt, testCommand: 'npm test', fresh: false, state: { logger, clock }, logger, redact });
    recorder.beginAttempt(1);
    recorder.observe({ loop: 1, source: 'agent', exitCode: 0, durationMs: 1, raw: 'token sk-secret-123 used' });
    const leaky: VerificationResult = {
      ...failing,
      failures: [{ name: 'env test', message: 'expected sk-secret-123 to be unset' }],
      commands: [{ ...failing.commands[0]!, output: 'KEY=sk-secret-123', failures: [{ name: 'env test', message: 'expected sk-secret-123 to be unset' }] }],
    };
    recorder.recordVerification(1, leaky, nextSameFailures(initialSameFailures(), leaky));
    const text = JSON.stringify(onDisk(recorder.record.run_id));
    expect(text).not.toContain('sk-secret-123');
    expect(onDisk(recorder.record.run_id).observations.map((o) => o.raw)).toEqual(['token [REDACTED] used', 'KEY=[REDACTED]']);
    expect(onDisk(recorder.record.run_id).last_verification!.failures[0]!.message).toBe('expected [REDACTED] to be unset');
  });

  it('holds the same number of attempts in memory at loop 200 as at loop 60; the logs and the counts keep every one', () => {
    const { clock, onDisk, open } = setup();
    const recorder = open(false, { saveEachChange: false });
    recorder.activate();
    const held: number[] = [];
    for (let loop = 1; loop <= 200; loop++) {
      runLoop(recorder, loop, clock);
      recorder.flush();
      if (loop === 60 || loop === 200) held.push(recorder.record.attempts.length);
    }
    expect(held).toEqual([ATTEMPTS_HELD, ATTEMPTS_HELD]);
    expect(recorder.record.attempts.map((a) => a.loop)).toEqual(Array.from({ length: ATTEMPTS_HELD }, (_, i) => 200 - ATTEMPTS_HELD + 1 + i));
    expect(summarizeRunForStatus(recorder.record).attempts).toBe(200);
    const saved = onDisk(recorder.record.run_id);
    expect(saved.attempts.map((a) => a.loop)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(summarizeRunForStatus(saved).attempts).toBe(200);
    recorder.beginAttempt(201);
    recorder.flush();
    const resumed = open();
    expect(resumed.firstLoop).toBe(201);
    expect(resumed.record.attempts).toHaveLength(201);
    expect(resumed.resumeContext(300)).toContain('- … 200 earlier attempts not shown');
  });

  it('saving each change, it forgets logged attempts past the newest ones too', () => {
    const { open, onDisk, clock } = setup();
    const recorder = open();
    recorder.activate();
    for (let loop = 1; loop <= 2 * ATTEMPTS_HELD; loop++) runLoop(recorder, loop, clock);
    recorder.beginAttempt(2 * ATTEMPTS_HELD + 1);
    expect(recorder.record.attempts).toHaveLength(ATTEMPTS_HELD);
    expect(recorder.record.attempts.at(-1)!.state).toBe('running');
    expect(onDisk(recorder.record.run_id).attempts).toHaveLength(2 * ATTEMPTS_HELD + 1);
  });

  it('ends a run that never started as failed when the agent cannot run', () => {
    const { open } = setup();
    const recorder = open();
    expect(recorder.end(1, 'agent not started')).toBe('failed');
  });
});
