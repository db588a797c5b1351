// The iteration session record (.ralph/sessions/<run-id>.json and its logs) as the loop keeps it: opened at
// startup (the last unfinished run resumes, or a new one starts; the decision is logged), one
// attempt per agent call, written when it starts and again when the loop's outcome and
// verification are known, and ended with the run's exit code. A `kill -9` mid-loop leaves the
// attempt running on disk: the next `ralph` marks it cut off (a call, of unknown cost) and goes
// on from the loop after the last finished one.
// A dry run keeps no record, nor does a start refused before the first agent call (an OPEN
// breaker must not add one per try).

import { startNewRun } from '../breaker/circuit-breaker.js';
import { failingCount, initialSameFailures, sameFailuresTripped } from '../verify/verification.js';
import { endLedgerRun, loadUnfinishedRun } from '../limits/limits-store.js';
import { RunRecorder } from './run-recorder.js';
import { trackerFromSummary, type VerificationTrackerState } from '../verify/verification-tracker.js';
import { readLedger } from '../state/ledger.js';
import { holdBreaker } from '../breaker/breaker-step.js';
import type { IterationResult } from '../loop/call-outcome.js';
import type { Run, RunSetup, RunStop } from '../loop/run.js';

/** What earlier attempts tried, told to the first loop of a resumed run. */
const RESUME_CONTEXT_CHARS = 1200;
/** An agent's reply is kept shorter than a test run's output: it is in the output log anyway. */
const AGENT_RAW_BYTES = 4096;

/** The record as opened, and what a resumed run carries on with. */
export interface OpenedRecord {
  readonly recorder: RunRecorder;
  /** The loop before the first one this process runs. */
  readonly loopsBefore: number;
  /** The verification tracker the run goes on with (a resumed run's, with ralph's own test baseline). */
  readonly verify: VerificationTrackerState;
  /** What earlier attempts of a resumed run tried, for the first loop's context only. */
  readonly resumeContext?: string;
}

/**
 * Open the record (resume or new): a resumed run's loop number and verification state, for the
 * loop to carry on with. A dry run keeps none.
 */
export function openSessionRecord(run: RunSetup, fresh: boolean): OpenedRecord | undefined {
  if (run.config.DRY_RUN) return undefined;
  const recorder = RunRecorder.open({
    paths: run.paths,
    promptFile: run.promptFile,
    optionalSections: run.config.OPTIONAL_SECTIONS,
    testCommand: run.verification.test?.command ?? null,
    fresh,
    unfinished: loadUnfinishedRun(run.paths, run.readOptions)?.run_id,
    state: run.readOptions,
    logger: run.deps.logger,
    saveEachChange: false,
    redact: run.deps.redact,
  });
  const { decision } = recorder;
  let verify = run.state.verify;
  let resumeContext: string | undefined;
  if (decision.kind === 'resume') {
    verify = trackerFromSummary(recorder.record.last_verification);
    resumeContext = recorder.resumeContext(RESUME_CONTEXT_CHARS) || undefined;
    // The breaker that same failures opened was reset (cooldown, --reset-circuit): count again.
    if (sameFailuresTripped(verify.sameFailures, run.config.CB_SAME_FAILURES_THRESHOLD) && run.state.breaker.value.state !== 'OPEN') {
      run.deps.logger.info('Same-failures count restarts: the circuit breaker it opened has been reset');
      verify = { ...verify, sameFailures: initialSameFailures() };
    }
  } else {
    holdBreaker(run, startNewRun(run.state.breaker.value, run.deps.clock.now()));
  }
  // What a later pass is measured against comes from ralph's ledger, never from the run record
  // (.ralph/sessions/ is the agent's to rewrite): a forged count there cannot hide lost tests.
  verify = { ...verify, lastPassingTests: ledgerTestsBaseline(run) };
  recorder.activate();
  recorder.flush();
  run.events.emit('run:opened', {
    runId: recorder.record.run_id,
    resumed: decision.kind === 'resume',
    nextLoop: recorder.firstLoop,
    cutOff: decision.kind === 'resume' ? decision.cutOff : [],
  });
  return { recorder, loopsBefore: recorder.firstLoop - 1, verify, ...(resumeContext ? { resumeContext } : {}) };
}

/** Before the agent call, saved: a `kill -9` mid-call leaves the attempt, which a resume marks cut off. */
export function beginAttemptRecord(run: Run, loop: number): void {
  run.recorder?.beginAttempt(loop);
  run.recorder?.flush();
}

/**
 * The loop's outcome and verification are known: finish its attempt, take a gap sample, save
 * the record (the loop's one write: its lines appended, the summary rewritten), then tell
 * subscribers the iteration is complete.
 */
export function finishAttemptRecord(run: Run, loop: number, result: IterationResult): void {
  const { recorder } = run;
  const { run: call, failure, analysis } = result;
  const s = call.summary;
  if (recorder) {
    recorder.observe({
      loop,
      source: 'agent',
      command: run.state.agentChoice.command,
      exitCode: call.exitCode,
      durationMs: call.durationMs,
      raw: s.resultText,
      maxRawBytes: AGENT_RAW_BYTES,
      data: { result: failure.kind, run: call.kind, files_changed: result.filesChanged.length },
    });
    recorder.finishAttempt({
      loop,
      outcome: run.state.lastOutcome,
      agentResult: failure.kind,
      agentSessionId: s.sessionId ?? null,
      agent: run.state.agentChoice.agent.name,
      tokens: { input: s.usage.input, output: s.usage.output, cache_read: s.usage.cacheRead, cache_creation: s.usage.cacheCreation },
      costUsd: run.state.spend.value.spend.run.costUsd - run.state.loopCostBefore,
      filesChanged: result.filesChanged,
      action: analysis?.analysis.work_summary || ('message' in failure ? `agent ${failure.kind}: ${failure.message}` : undefined),
      openItems: countOpenItems(run),
      failingTests: run.verification.commands.length > 0 && run.state.verify.latest ? failingCount(run.state.verify.latest) : null,
    });
    recorder.flush();
  }
  run.events.emit('iteration:completed', { ...result.completed, verification: run.state.lastOutcome });
}

/**
 * Stopped by a signal or a crash mid-loop: the running attempt is saved, and a resume runs it
 * again. Best effort: on the way out, a failed write must not hide why the run stopped.
 */
export function saveUnfinishedAttempt(run: Pick<Run, 'recorder' | 'deps'>): void {
  try {
    run.recorder?.flush();
  } catch (error) {
    run.deps.logger.warn(`Could not save the session record: ${(error as Error).message}`);
  }
}

/**
 * The run stopped: converged (0), escalated (2), failed (1), exhausted (one of its budgets);
 * another limit or an interrupt keeps it resumable.
 */
export function endSessionRecord(run: Run, result: RunStop): void {
  const status = run.recorder?.end(result.exitCode, result.message ?? result.exitReason, result.endsRun ?? false);
  if (status && run.recorder?.saved) run.deps.logger.info(`Session record ${run.recorder.record.run_id}: ${status}`);
  // The ledger, not the record the agent can write, says whether the run goes on after a restart.
  if (run.recorder?.ended) endLedgerRun(run.paths, run.state.spend.value);
}

function countOpenItems(run: Run): number | null {
  return run.state.plan.view?.blocking.open ?? null;
}

function ledgerTestsBaseline(run: Run): number | null {
  if (!run.paths.ledger) return null;
  return readLedger(run.paths.ledger, (message) => run.deps.logger.warn(message))?.tests_baseline ?? null;
}
