// A gate run that passed with far fewer tests than the last passing one proves little: the
// tests may have been deleted, skipped or replaced by a script that exits 0. More than half of
// them gone (from at least MIN_TESTS_COUNTED) makes the test command's pass not verified: it is
// reported, it is no evidence, and it cannot end a run as done. Pure.

import { combineVerification, type CommandVerification, type VerificationResult } from './verification-result.js';

/** Below this many tests in the last passing run, a drop says too little to judge. */
export const MIN_TESTS_COUNTED = 2;

/** The tests a gate run executed, as its commands counted them (passed + failed; 0: none counted). */
export function testsRun(result: Pick<VerificationResult, 'passed' | 'failed'>): number {
  return result.passed + result.failed;
}

/** Whether `ran` tests against `before` in the last passing run is a sharp drop. */
export function isSharpDrop(ran: number, before: number | null): before is number {
  return before !== null && before >= MIN_TESTS_COUNTED && ran * 2 < before;
}

/**
 * The result as the gate judges it against the last passing run's count (`before`): a pass with
 * a sharp drop has its test commands not verified, each naming the counts.
 */
export function checkTestCount(result: VerificationResult, before: number | null): VerificationResult {
  const ran = testsRun(result);
  if (result.status !== 'passed' || !isSharpDrop(ran, before)) return result;
  const commands = result.commands.map((c): CommandVerification => {
    if (c.role !== 'test' || c.status !== 'passed') return c;
    const message = `ran ${ran} test${ran === 1 ? '' : 's'} where the last passing gate run ran ${before}: more than half of the tests are gone; not verified (restore them; if they were removed on purpose, the next run starts from the new count)`;
    return { ...c, status: 'not-verified', lostTests: { ran, before }, failures: [{ name: c.command, message }], failuresOmitted: 0 };
  });
  return combineVerification(commands, result.durationMs);
}
