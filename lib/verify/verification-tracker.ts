// What the loop remembers about verification between loops, and the decisions it takes from
// it: the latest result and whether it is fresh (taken after the last loop that changed files),
// the same-failures count, the next loop's context section and whether a completion claim may
// stand. Pure: the loop runs the gate (run-gate.ts) and hands the result in.

import {
  checkCompletion,
  classifyVerification,
  formatFailuresForContext,
  formatSameFailuresReason,
  initialSameFailures,
  sameFailuresTripped,
  type CompletionCheck,
  type SameFailuresState,
  type VerificationOutcome,
  type VerificationSnapshot,
} from './verification.js';
import type { ExitGateResult } from '../exit-gate/exit-gate.js';
import { nextSameFailures } from './same-failures.js';

export interface VerificationTrackerState {
  latest: VerificationSnapshot | null;
  /** Loop whose gate run produced `latest`. */
  latestLoop: number | null;
  /** Last loop that changed files (a result older than it is stale). */
  lastChangeLoop: number | null;
  /** false after a resume until the gate runs again: files may have changed while ralph was down. */
  trusted: boolean;
  sameFailures: SameFailuresState;
  /** Last loop counted into sameFailures: a loop counts once, however often its gate re-runs. */
  countedLoop: number | null;
  /** The tests the last passing gate run executed (null: none passed yet, or nothing counted). */
  lastPassingTests: number | null;
}

export function initialVerificationTracker(): VerificationTrackerState {
  return {
    latest: null,
    latestLoop: null,
    lastChangeLoop: null,
    trusted: true,
    sameFailures: initialSameFailures(),
    countedLoop: null,
    lastPassingTests: null,
  };
}

/**
 * What a run record keeps of its last verification (session-record's VerificationSummary has
 * this shape; verify does not import the record, the record imports verify).
 */
export interface RecordedVerification {
  loop: number;
  status: VerificationSnapshot['status'];
  passed: number;
  failed: number;
  skipped: number;
  failures: VerificationSnapshot['failures'];
  failures_omitted: number;
  commands: VerificationSnapshot['commands'];
  signature: string | null;
  same_failures_count: number;
}

/** A resumed run continues from its record's last verification (stale until re-run). */
export function trackerFromSummary(summary: RecordedVerification | null): VerificationTrackerState {
  if (!summary) return initialVerificationTracker();
  const latest: VerificationSnapshot = {
    status: summary.status,
    passed: summary.passed,
    failed: summary.failed,
    skipped: summary.skipped,
    failures: summary.failures,
    failuresOmitted: summary.failures_omitted,
    commands: summary.commands,
  };
  const names = [...new Set(summary.failures.map((f) => f.name))];
  return {
    latest,
    latestLoop: summary.loop,
    lastChangeLoop: null,
    trusted: false,
    countedLoop: summary.loop,
    lastPassingTests: summary.status === 'passed' && summary.passed + summary.failed > 0 ? summary.passed + summary.failed : null,
    sameFailures:
      summary.signature === null
        ? initialSameFailures()
        : {
            signature: summary.signature,
            count: summary.same_failures_count,
            names: names.slice(0, 10),
            kind: summary.status === 'failed' ? 'failed' : 'error',
            more: Math.max(0, summary.failed - Math.min(names.length, 10)),
          },
  };
}

/** The gate runs after a loop that changed files, when there is anything to run. */
export function shouldRunGateAfterLoop(filesChanged: number, commandCount: number): boolean {
  return filesChanged > 0 && commandCount > 0;
}

export interface TrackedVerification {
  state: VerificationTrackerState;
  outcome: VerificationOutcome;
  /** The same failures reached CB_SAME_FAILURES_THRESHOLD: open the breaker with `reason`. */
  tripped: boolean;
  reason: string;
}

/** A gate run finished in `loop` (after the loop's changes, or before accepting completion). */
export function trackGateResult(state: VerificationTrackerState, loop: number, result: VerificationSnapshot, threshold: number): TrackedVerification {
  const sameFailures = countLoop(state, loop, result);
  const ran = result.passed + result.failed;
  const lastPassingTests = result.status === 'passed' && ran > 0 ? ran : state.lastPassingTests;
  const next: VerificationTrackerState = { ...state, latest: result, latestLoop: loop, trusted: true, sameFailures, countedLoop: loop, lastPassingTests };
  return judge(next, classifyVerification(state.latest, result), threshold);
}

/**
 * A loop that ran the agent but not the gate (it changed nothing): the failing set is
 * unchanged, so it counts toward the same failures again. Nothing to count without a result.
 */
export function trackLoopWithoutGate(state: VerificationTrackerState, loop: number, threshold: number): TrackedVerification | null {
  if (!state.latest || state.latest.status === 'passed') return null;
  const next = { ...state, sameFailures: countLoop(state, loop, state.latest), countedLoop: loop };
  return judge(next, classifyVerification(state.latest, state.latest), threshold);
}

export function noteFilesChanged(state: VerificationTrackerState, loop: number, filesChanged: number): VerificationTrackerState {
  return filesChanged > 0 ? { ...state, lastChangeLoop: loop } : state;
}

export function isFresh(state: VerificationTrackerState): boolean {
  if (!state.trusted || state.latest === null || state.latestLoop === null) return false;
  return state.lastChangeLoop === null || state.latestLoop >= state.lastChangeLoop;
}

export function checkTrackedCompletion(state: VerificationTrackerState, exitGate: ExitGateResult, requiredForExit: boolean): CompletionCheck {
  return checkCompletion({ exitGate, requiredForExit, latest: state.latest, fresh: isFresh(state) });
}

/** The failing tests for the next loop's context ('' when the latest result passed). */
export function verificationContextSection(state: VerificationTrackerState, maxChars: number): string {
  return state.latest ? formatFailuresForContext(state.latest, maxChars) : '';
}

/** The same failures once more, unless this loop was counted already (same failing set). */
function countLoop(state: VerificationTrackerState, loop: number, result: VerificationSnapshot): SameFailuresState {
  const next = nextSameFailures(state.sameFailures, result);
  const again = state.countedLoop === loop && next.signature !== null && next.signature === state.sameFailures.signature;
  return again ? { ...next, count: state.sameFailures.count } : next;
}

function judge(state: VerificationTrackerState, outcome: VerificationOutcome, threshold: number): TrackedVerification {
  const tripped = sameFailuresTripped(state.sameFailures, threshold);
  return { state, outcome, tripped, reason: tripped ? formatSameFailuresReason(state.sameFailures) : '' };
}
