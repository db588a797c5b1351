// The verification gate as loop steps. After a loop that changed files the project's own test
// command (and QUALITY_GATES) runs; the result is tracked (the same failures CB_SAME_FAILURES_
// THRESHOLD loops in a row open the circuit breaker), logged and kept in the session record,
// and the next loop is told what fails; the user sees it too (the failing tests or the command's
// last lines, bounded). Before a completion claim is accepted the gate must pass on the current
// code. With nothing to run, every step returns at once.

import { formatHaltBox } from '../breaker/breaker-messages.js';
import type { ExitGateResult } from '../exit-gate/exit-gate.js';
import { openBreakerForSameFailures } from '../breaker/circuit-breaker.js';
import { EXIT } from '../errors.js';
import { describeGateFailures } from '../verify/failure-report.js';
import { runVerificationGate } from '../verify/run-gate.js';
import { checkTestCount } from '../verify/test-count.js';
import { describeVerification, type VerificationResult } from '../verify/verification-result.js';
import {
  checkTrackedCompletion,
  noteFilesChanged,
  shouldRunGateAfterLoop,
  trackGateResult,
  trackLoopWithoutGate,
  type TrackedVerification,
  type VerificationTrackerState,
} from '../verify/verification-tracker.js';
import { saveLedgerTestsBaseline } from '../state/ledger.js';
import { escapedOutputWarning } from '../agent-run/escaped-output.js';
import { resetRunSession } from '../sessions/agent-session.js';
import { holdBreaker } from '../breaker/breaker-step.js';
import { contentEvidence, retakeContentAtNextLoop } from '../analysis/loop-progress.js';
import { CONTINUE, stopRun, type Run, type RunStop, type StepResult } from './run.js';
import { withoutJobSecrets } from '../platform/job-secrets.js';
import { killEscapedProcesses } from '../agent-run/escaped-processes.js';
import { RUN_MARK_VARIABLE } from '../platform/marked-processes.js';

/** A step's outcome, or: a stop signal arrived while the gate ran (its result is not counted). */
export type VerificationStepResult = StepResult | { kind: 'interrupted' };

export interface LoopVerificationInput {
  loop: number;
  filesChanged: number;
  /** The agent finished its work (ok, or a timeout that changed files): its changes are judged. */
  productive: boolean;
  /** The gate already ran in this loop, for items that need no code change (verifyTicks): its result stands. */
  gateRan?: TrackedVerification;
}

/**
 * After an agent call: the gate runs when the loop changed files (or, in a resumed run, until it
 * has run once — files may have changed while ralph was down). A productive loop that changed
 * nothing counts the unchanged failures once more. Sets run.state.verify and run.state.lastOutcome.
 */
export async function verifyAfterLoop(run: Run, input: LoopVerificationInput): Promise<VerificationStepResult> {
  const commands = run.verification.commands.length;
  if (commands === 0) return CONTINUE;
  run.state.verify = noteFilesChanged(run.state.verify, input.loop, input.filesChanged);
  if (!input.productive) return CONTINUE;

  const threshold = run.config.CB_SAME_FAILURES_THRESHOLD;
  let tracked: TrackedVerification | null;
  if (input.gateRan) {
    tracked = { ...input.gateRan, state: noteFilesChanged(input.gateRan.state, input.loop, input.filesChanged) };
  } else if (shouldRunGateAfterLoop(input.filesChanged, commands) || !run.state.verify.trusted) {
    const result = await runGate(run, input.loop);
    if (run.stop.received) return { kind: 'interrupted' };
    tracked = trackGateResult(run.state.verify, input.loop, result, threshold);
    keepGateResult(run, input.loop, result, tracked);
  } else {
    tracked = trackLoopWithoutGate(run.state.verify, input.loop, threshold);
  }
  if (!tracked) return CONTINUE;
  keepTracked(run, tracked.state);
  run.state.lastOutcome = tracked.outcome;
  return tracked.tripped ? haltForSameFailures(run, input.loop, tracked.reason) : CONTINUE;
}

/** What to do with the exit gate's completion: accept it, or go on because the gate fails. */
export type CompletionStepResult = { kind: 'proceed' } | { kind: 'blocked' } | { kind: 'interrupted' } | RunStop;

/**
 * The exit gate said the work is done. When completion requires verification and no fresh
 * result exists, the gate runs now on what the previous loop left (recorded under that loop).
 * A failing gate blocks the completion: the loop goes on and the agent is told what fails.
 */
export async function checkCompletionClaim(run: Run, gate: Extract<ExitGateResult, { kind: 'exit' }>): Promise<CompletionStepResult> {
  // A dry run runs nothing, tests included.
  const requiredForExit = run.verification.requiredForExit && !run.config.DRY_RUN;
  let check = checkTrackedCompletion(run.state.verify, gate, requiredForExit);
  if (check.kind === 'verify') {
    const loop = Math.max(0, run.state.loopCount - 1);
    const result = await runGate(run, loop);
    if (run.stop.received) return { kind: 'interrupted' };
    const tracked = trackGateResult(run.state.verify, loop, result, run.config.CB_SAME_FAILURES_THRESHOLD);
    keepTracked(run, tracked.state);
    keepGateResult(run, loop, result, tracked);
    // That loop's attempt is already on disk: this result is saved on its own.
    run.recorder?.flush();
    if (tracked.tripped) return haltForSameFailures(run, loop, tracked.reason);
    check = checkTrackedCompletion(run.state.verify, gate, requiredForExit);
  }
  if (check.kind === 'proceed') return check;
  // 'verify' again cannot happen (the result is fresh now); treat it as not verified.
  run.deps.logger.warn(check.kind === 'blocked' ? check.reason : `Completion claimed (${gate.reason}) but the verification gate gave no result; continuing`);
  return { kind: 'blocked' };
}

async function runGate(run: Run, loop: number): Promise<VerificationResult> {
  const { deps, verification } = run;
  const commands = verification.commands.map((c) => c.command);
  deps.logger.info(`Verification gate: running ${commands.join(' then ')}`);
  run.events.emit('verification:started', { loop, commands });
  // The gate runs the agent's code: under a sandbox, inside it, with its reports in .ralph/ (seen from both sides).
  const sandboxed = run.sandbox.provider !== 'none';
  if (sandboxed) await run.sandbox.ensureRunning();
  const runId = run.recorder?.record.run_id;
  let result: VerificationResult;
  try {
    result = await runVerificationGate({
      commands: verification.commands,
      projectDir: run.paths.projectDir,
      sandbox: run.sandbox,
      ...(sandboxed ? { tempDir: run.paths.ralphDir } : {}),
      // The gate runs the agent's code: none of a CI job's tokens, and the run's mark, which what
      // it leaves running outside its process group still carries.
      env: runId === undefined ? withoutJobSecrets(deps.env) : { ...withoutJobSecrets(deps.env), [RUN_MARK_VARIABLE]: runId },
      timeoutMs: verification.timeoutMs,
      graceMs: run.config.KILL_GRACE_SECONDS * 1000,
      processRunner: deps.processRunner,
      clock: deps.clock,
      signal: run.stop.signal,
      onPipesHeldOpen: (command) => deps.logger.warn(`${escapedOutputWarning('verification command')}: ${command}`),
    });
  } finally {
    killEscapedProcesses(runId, deps.logger);
    // The gate ran the agent's code: what it left running inside is gone before ralph looks, and
    // (ralph run as root, with or without a sandbox) no setuid or setgid bit it set survives.
    await run.sandbox.afterCall();
  }
  // Test runs write caches and reports: they are not the next loop's work.
  retakeContentAtNextLoop(run);
  // Far fewer tests than the last passing run: no evidence, and said so.
  return checkTestCount(result, run.state.verify.lastPassingTests);
}

/** Log it, tell subscribers, and put it in the session record (saved with the loop). */
function keepGateResult(run: Run, loop: number, result: VerificationResult, tracked: TrackedVerification): void {
  const line = describeVerification(result);
  if (result.status === 'passed') run.deps.logger.success(line);
  else run.deps.logger.warn(line);
  // What fails, on the console and in ralph.log (the dashboard shows its tail); the logger masks secrets.
  for (const detail of describeGateFailures(result)) run.deps.logger.warn(detail);
  run.recorder?.recordVerification(loop, result, tracked.state.sameFailures);
  run.events.emit('verification:completed', {
    loop,
    status: result.status,
    passed: result.passed,
    failed: result.failed,
    skipped: result.skipped,
    durationMs: result.durationMs,
    outcome: tracked.outcome,
    failing: result.failures.map((f) => f.name),
  });
}

/** What verifyTicks found: the gate's result as tracked, and whether it closed an item for the first time in the run. */
export interface TicksVerified {
  gateRan?: TrackedVerification;
  closedItems: boolean;
}

/**
 * Items that need no code change, ticked in the loop just ended with no new content: the gate
 * runs now, before the loop is judged, and its pass closes them (the loop then made progress).
 */
export async function verifyTicks(run: Run, loop: number): Promise<TicksVerified> {
  const ticks = run.state.plan.takeVerificationTicks();
  if (ticks.length === 0 || run.verification.commands.length === 0 || run.config.DRY_RUN) return { closedItems: false };
  const result = await runGate(run, loop);
  if (run.stop.received) return { closedItems: false };
  const tracked = trackGateResult(run.state.verify, loop, result, run.config.CB_SAME_FAILURES_THRESHOLD);
  keepTracked(run, tracked.state);
  keepGateResult(run, loop, result, tracked);
  const passed = result.status === 'passed' && result.passed > 0;
  return { gateRan: tracked, closedItems: passed && run.state.plan.closeVerified(ticks, contentEvidence(run)) };
}

/** The same failures lasted too long: open the breaker (exit 2), naming the tests. */
function haltForSameFailures(run: Run, loop: number, reason: string): RunStop {
  const { deps } = run;
  const now = deps.clock.now();
  const opened = openBreakerForSameFailures(run.state.breaker.value, reason, loop, now);
  holdBreaker(run, opened);
  resetRunSession(run, 'circuit_breaker_trip', loop);
  deps.stderr.write(`${formatHaltBox(opened.state, { now }).join('\n')}\n`);
  return stopRun(EXIT.halted, 'halted', 'stagnation_detected', 'circuit_breaker_open', `Circuit breaker opened: ${reason}`);
}

/**
 * The tracker's new state; a new test count of a passing gate run is kept in ralph's ledger too,
 * where a restart reads it back (the run record in .ralph/ is the agent's to rewrite).
 */
function keepTracked(run: Run, next: VerificationTrackerState): void {
  const before = run.state.verify.lastPassingTests;
  run.state.verify = next;
  if (next.lastPassingTests !== before && next.lastPassingTests !== null && run.paths.ledger && !run.config.DRY_RUN) {
    saveLedgerTestsBaseline(run.paths.ledger, run.paths.projectDir, next.lastPassingTests);
  }
}
