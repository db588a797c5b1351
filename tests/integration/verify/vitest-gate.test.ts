// The gate against a real TypeScript project with one failing vitest test, run by the
// repository's own vitest: structured results, the failure fed into the next loop's context,
// and a session record that validates after every loop.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLoopContext } from '../../../lib/agents/loop-context.js';
import { classifyVerification, formatFailuresForContext, initialSameFailures } from '../../../lib/verify/verification.js';
import { nextSameFailures } from '../../../lib/verify/same-failures.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { finishAttempt, startAttempt } from '../../../lib/run-record/attempts.js';
import { gapSample, recordGap } from '../../../lib/run-record/gap.js';
import { recordVerification } from '../../../lib/run-record/observations.js';
import { createRunRecord } from '../../../lib/run-record/run-record.js';
import { decideRunStart } from '../../../lib/run-record/run-start.js';
import { readRunRecordFile } from '../../helpers/run-record-files.js';
import { findResumableRun, runRecordPath, saveRunRecord } from '../../../lib/run-record/record-store.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { runVerificationGate } from '../../../lib/verify/run-gate.js';
import type { VerificationResult } from '../../../lib/verify/verification-result.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { copyFixture, gateOptions, REPO_VITEST, REPO_VITEST_RUN, type FixtureCopy } from './verify-fixture.js';

let fixture: FixtureCopy;
let failing: VerificationResult;

beforeAll(async () => {
  fixture = copyFixture('ts-project');
  failing = await runVerificationGate(gateOptions(fixture.dir, { commands: [{ command: REPO_VITEST_RUN, role: 'test' }] }));
});
afterAll(() => fixture.cleanup());

describe('verification gate on a vitest project', () => {
  it('reads vitest JSON: the failing test by name with its assertion, counts, duration', () => {
    expect(failing).toMatchObject({ status: 'failed', passed: 1, failed: 1, skipped: 0 });
    expect(failing.commands[0]).toMatchObject({ format: 'vitest-json', exitCode: 1, timedOut: false, role: 'test' });
    expect(failing.failures).toEqual([{ name: 'sum.spec.ts > sum > adds two numbers', message: 'AssertionError: expected -1 to be 3 // Object.is equality' }]);
    expect(failing.durationMs).toBeGreaterThan(0);
    // The default reporter's output is kept for the record.
    expect(failing.commands[0]!.output).toContain('adds two numbers');
  });

  it("puts the failure's name into the next loop's context", () => {
    const context = buildLoopContext({
      loop: 2,
      plan: null,
      breakerState: 'CLOSED',
      previousAnalysis: null,
      extraSections: [formatFailuresForContext(failing, 1500)],
    });
    expect(context).toContain('Loop #2.');
    expect(context).toContain('- sum.spec.ts > sum > adds two numbers: AssertionError: expected -1 to be 3');
  });

  it('passes once the code is fixed, through `npm test` whose script is vitest', async () => {
    const source = join(fixture.dir, 'sum.ts');
    writeFileSync(join(fixture.dir, 'package.json'), JSON.stringify({ name: 'fixture', private: true, scripts: { test: 'vitest run' } }));
    writeFileSync(source, readFileSync(source, 'utf8').replace('a - b', 'a + b'));
    const env = { ...process.env, PATH: `${join(REPO_VITEST, '..')}:${process.env.PATH ?? ''}` };
    const passing = await runVerificationGate(gateOptions(fixture.dir, { env, commands: [{ command: 'npm test', role: 'test' }] }));
    expect(passing).toMatchObject({ status: 'passed', passed: 2, failed: 0, failures: [] });
    expect(passing.commands[0]).toMatchObject({ format: 'vitest-json', exitCode: 0 });
    expect(classifyVerification(failing, passing)).toBe('tests-passing');
  });

  it('records the loops in a session record that validates after each save, and resumes after a crash', () => {
    const paths = ralphPaths(fixture.dir);
    const clock = fakeClock();
    const logger = createMemoryLogger();
    const saved = () => readRunRecordFile(runRecordPath(paths, record.run_id));

    let record = createRunRecord({
      now: clock.now(),
      goal: { type: 'tests', summary: 'Make the tests pass', source: 'PROMPT.md', open_items_at_start: null, test_command: 'vitest run' },
    });
    saveRunRecord(paths, record);
    let same = initialSameFailures();
    for (const loop of [1, 2]) {
      record = startAttempt(record, loop, clock.now());
      saveRunRecord(paths, record);
      clock.advance(30_000);
      same = nextSameFailures(same, failing);
      record = recordVerification(record, { loop, now: clock.now(), result: failing, sameFailures: same });
      record = recordGap(record, gapSample(loop, null, failing.failed), clock.now());
      record = finishAttempt(record, {
        loop,
        now: clock.now(),
        outcome: classifyVerification(loop === 1 ? null : failing, failing),
        agentResult: 'ok',
        filesChanged: ['sum.ts'],
      });
      saveRunRecord(paths, record);
      expect(saved().attempts).toHaveLength(loop);
    }
    expect(saved().last_verification).toMatchObject({ status: 'failed', same_failures_count: 2, failures: [{ name: 'sum.spec.ts > sum > adds two numbers' }] });
    expect(saved().observations[0]).toMatchObject({ source: 'test', exit_code: 1, truncated: false });

    // Loop 3 starts, then ralph is killed: the saved record has a running attempt.
    record = startAttempt(record, 3, clock.now());
    saveRunRecord(paths, record);
    const latest = findResumableRun(paths, { logger, clock });
    const decision = decideRunStart({ latest, fresh: false, now: clock.now() });
    expect(decision).toMatchObject({ kind: 'resume', nextLoop: 3, cutOff: [3] });
    if (decision.kind === 'resume') saveRunRecord(paths, decision.record);
    expect(saved().attempts.map((a) => [a.loop, a.state])).toEqual([
      [1, 'finished'],
      [2, 'finished'],
      [3, 'cut-off'],
    ]);
  });
});
