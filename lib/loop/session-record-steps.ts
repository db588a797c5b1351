// The iteration session record (.ralph/sessions/<run-id>.json and its logs) as the loop keeps it: opened at
// startup (the last unfinished run resumes, or a new one starts; the decision is logged), one
// attempt per agent call, written when it starts and again when the loop's outcome and
// verification are known, and ended with the run's exit code. A `kill -9` mid-loop leaves the
// attempt running on disk: the next `ralph` marks it cut off (a call, of unknown cost) and goes
// on from the loop after the last finished one.
// A dry run keeps no record, nor does a start refused before the first agent call (an OPEN
// breaker must not add one per try).

import { startNewRun } from '../core/circuit-breaker.js';
import { failingCount, initialSameFailures, sameFailuresTripped } from '../core/verification.js';
import { endLedgerRun, loadUnfinishedRun } from './guard-store.js';
import { RunRecorder } from '../session-record/run-recorder.js';
import { trackerFromSummary } from '../verify/verification-tracker.js';
import { holdBreaker } from './breaker.js';
import type { IterationResult } from './iteration.js';
import type { LoopRuntime, RunStop } from './runtime.js';

/** What earlier attempts tried, told to the first loop of a resumed run. */
const RESUME_CONTEXT_CHARS = 1200;
/** An agent's reply is kept shorter than a test run's output: it is in the output log anyway. */
const AGENT_RAW_BYTES = 4096;

/**
 * Open the record (resume or new), and carry a resumed run's loop number and verification
 * state into the runtime. Sets rt.loopCount to the loop before the first one this process runs.
 */
export function openSessionRecord(rt: LoopRuntime, fresh: boolean): void {
  if (rt.config.DRY_RUN) return;
  const recorder = RunRecorder.open({
    paths: rt.paths,
    promptFile: rt.promptFile,
    optionalSections: rt.config.OPTIONAL_SECTIONS,
    testCommand: rt.verification.test?.command ?? null,
    fresh,
    unfinished: loadUnfinishedRun(rt.paths, rt.state)?.run_id,
    state: rt.state,
    logger: rt.deps.logger,
    saveEachChange: false,
    redact: rt.deps.redact,
  });
  rt.recorder = recorder;
  rt.loopCount = recorder.firstLoop - 1;
  const { decision } = recorder;
  if (decision.kind === 'resume') {
    rt.verify = trackerFromSummary(recorder.record.last_verification);
    rt.resumeContext = recorder.resumeContext(RESUME_CONTEXT_CHARS) || undefined;
    // The breaker that same failures opened was reset (cooldown, --reset-circuit): count again.
    if (sameFailuresTripped(rt.verify.sameFailures, rt.config.CB_SAME_FAILURES_THRESHOLD) && rt.breaker.state !== 'OPEN') {
      rt.deps.logger.info('Same-failures count restarts: the circuit breaker it opened has been reset');
      rt.verify = { ...rt.verify, sameFailures: initialSameFailures() };
    }
  } else {
    holdBreaker(rt, startNewRun(rt.breaker, rt.deps.clock.now()));
  }
  recorder.activate();
  recorder.flush();
  rt.events.emit('run:opened', {
    runId: recorder.record.run_id,
    resumed: decision.kind === 'resume',
    nextLoop: recorder.firstLoop,
    cutOff: decision.kind === 'resume' ? decision.cutOff : [],
  });
}

/** Before the agent call, saved: a `kill -9` mid-call leaves the attempt, which a resume marks cut off. */
export function beginAttemptRecord(rt: LoopRuntime, loop: number): void {
  rt.lastOutcome = 'unverified';
  rt.loopCostBefore = rt.run.value.spend.run.costUsd;
  rt.recorder?.beginAttempt(loop);
  rt.recorder?.flush();
}

/**
 * The loop's outcome and verification are known: finish its attempt, take a gap sample, save
 * the record (the loop's one write: its lines appended, the summary rewritten), then tell
 * subscribers the iteration is complete.
 */
export function finishAttemptRecord(rt: LoopRuntime, loop: number, result: IterationResult): void {
  const { recorder } = rt;
  const { run, failure, analysis } = result;
  const s = run.summary;
  if (recorder) {
    recorder.observe({
      loop,
      source: 'agent',
      command: rt.agentCommand,
      exitCode: run.exitCode,
      durationMs: run.durationMs,
      raw: s.resultText,
      maxRawBytes: AGENT_RAW_BYTES,
      data: { result: failure.kind, run: run.kind, files_changed: result.filesChanged.length },
    });
    recorder.finishAttempt({
      loop,
      outcome: rt.lastOutcome,
      agentResult: failure.kind,
      agentSessionId: s.sessionId ?? null,
      agent: rt.agent.name,
      tokens: { input: s.usage.input, output: s.usage.output, cache_read: s.usage.cacheRead, cache_creation: s.usage.cacheCreation },
      costUsd: rt.run.value.spend.run.costUsd - rt.loopCostBefore,
      filesChanged: result.filesChanged,
      action: analysis?.analysis.work_summary || ('message' in failure ? `agent ${failure.kind}: ${failure.message}` : undefined),
      openItems: countOpenItems(rt),
      failingTests: rt.verification.commands.length > 0 && rt.verify.latest ? failingCount(rt.verify.latest) : null,
    });
    recorder.flush();
  }
  rt.events.emit('iteration:completed', { ...result.completed, verification: rt.lastOutcome });
}

/**
 * Stopped by a signal or a crash mid-loop: the running attempt is saved, and a resume runs it
 * again. Best effort: on the way out, a failed write must not hide why the run stopped.
 */
export function saveUnfinishedAttempt(rt: LoopRuntime): void {
  try {
    rt.recorder?.flush();
  } catch (error) {
    rt.deps.logger.warn(`Could not save the session record: ${(error as Error).message}`);
  }
}

/**
 * The run stopped: converged (0), escalated (2), failed (1), exhausted (one of its budgets);
 * another limit or an interrupt keeps it resumable.
 */
export function endSessionRecord(rt: LoopRuntime, result: RunStop): void {
  const status = rt.recorder?.end(result.exitCode, result.message ?? result.exitReason, result.endsRun ?? false);
  if (status && rt.recorder?.saved) rt.deps.logger.info(`Session record ${rt.recorder.record.run_id}: ${status}`);
  // The ledger, not the record the agent can write, says whether the run goes on after a restart.
  if (rt.recorder?.ended) endLedgerRun(rt.paths, rt.run.value);
}

function countOpenItems(rt: LoopRuntime): number | null {
  return rt.plan?.blocking.open ?? null;
}
