// Circuit breaker: CLOSED → HALF_OPEN → OPEN when loops stop making progress, repeat the same
// error or keep hitting permission denials; OPEN halts the run. Pure transitions over the Bash
// tool's `.circuit_breaker_state` shape, so either version reads the
// other's file; lib/state only loads and saves it. Fixes over Bash: progress is only new
// content measured by ralph (progress-evidence.ts), never a completion claim or a reported
// FILES_MODIFIED; asking questions holds the count for one loop per stall, not for ever; "same
// error" means the same normalised error signature in consecutive loops (Bash counted any
// error), failed runs and timeouts without progress count as no progress (Bash did not feed
// them), and HALF_OPEN also opens on a repeated error.
//
// CB_OUTPUT_DECLINE_THRESHOLD is accepted and ignored, like in Bash (where it was declared but
// never read): the length of an agent's reply says nothing about progress.

import { defaultCircuitBreakerFile, type BreakerStateName, type CircuitBreakerFile } from '../state/schemas.js';
import { formatIsoTimestamp } from '../state/timestamps.js';

export type { BreakerStateName };

/**
 * The `.circuit_breaker_state` file's own type (lib/state/schemas.ts): the breaker in memory is
 * what is saved and read back, with no second shape.
 */
export type BreakerState = CircuitBreakerFile;

export interface BreakerThresholds {
  /** CB_NO_PROGRESS_THRESHOLD */
  noProgress: number;
  /** CB_SAME_ERROR_THRESHOLD */
  sameError: number;
  /** CB_PERMISSION_DENIAL_THRESHOLD */
  permissionDenials: number;
  /** CB_COOLDOWN_MINUTES: OPEN → HALF_OPEN after this long (0: at once). */
  cooldownMinutes: number;
  /** CB_AUTO_RESET / --auto-reset-circuit: OPEN → CLOSED at startup. */
  autoReset: boolean;
}

export interface BreakerObservation {
  loop: number;
  /** The project's content reached a state not seen before in this run (judgeContent). */
  progress: boolean;
  /** The agent asked questions instead of working: the count is held, once per stall (Bash #190 held it for ever). */
  askingQuestions: boolean;
  hasPermissionDenials: boolean;
  /** Normalised error of this loop (see errorSignatureOf), null when there was none. */
  errorSignature: string | null;
  /** The run failed or timed out (no usable analysis). */
  failed: boolean;
  /**
   * The loop completed a plan item with evidence ralph measured (plan-memory.ts): the work moved
   * on, even when the content did not reach a new state (a revert, an item closed by the gate).
   * It counts as progress and restarts the same-error count: an error the agent quotes in every
   * loop while items get done is not the error it is stuck on.
   */
  planProgress?: boolean;
}

export interface BreakerTransition {
  from: BreakerStateName;
  to: BreakerStateName;
  reason: string;
  loop: number;
  timestamp: string;
}

export interface BreakerHistoryEntry {
  timestamp: string;
  loop: number;
  from_state: BreakerStateName;
  to_state: BreakerStateName;
  reason: string;
}

export interface BreakerResult {
  state: BreakerState;
  transition?: BreakerTransition;
}

/** Bash enters HALF_OPEN ("monitoring") after this many loops without progress, whatever the threshold. */
const MONITORING_AFTER = 2;

/** A new breaker: the state file's default (lib/state/schemas.ts), changed now. */
export function initialBreakerState(now: number): BreakerState {
  return { ...defaultCircuitBreakerFile(), last_change: formatIsoTimestamp(now) };
}

/** `--reset-circuit`: CLOSED, every counter and total_opens back to 0 (no history entry). */
export function resetBreaker(reason: string, now: number): BreakerState {
  return { ...initialBreakerState(now), reason, last_error_signature: null };
}

/**
 * A new run (not a resumed one) counts its own loops: what an earlier run left of the
 * consecutive counters (a run that ended at --max-loops, HALF_OPEN after two idle loops) starts
 * again at 0. An OPEN breaker stays OPEN: its cooldown or --reset-circuit decides.
 */
export function startNewRun(state: BreakerState, now: number): BreakerResult {
  const counted = state.consecutive_no_progress + state.consecutive_same_error + state.consecutive_permission_denials;
  if (state.state === 'OPEN' || (state.state === 'CLOSED' && counted === 0)) return { state };
  const timestamp = formatIsoTimestamp(now);
  const reason = 'New run: loop counters restart';
  const next: BreakerState = {
    ...state,
    state: 'CLOSED',
    consecutive_no_progress: 0,
    consecutive_same_error: 0,
    consecutive_permission_denials: 0,
    last_error_signature: null,
    reason,
    last_change: state.state === 'CLOSED' ? state.last_change : timestamp,
  };
  if (state.state === 'CLOSED') return { state: next };
  return { state: next, transition: { from: state.state, to: 'CLOSED', reason, loop: state.current_loop ?? 0, timestamp } };
}

export function shouldHalt(state: BreakerState): boolean {
  return state.state === 'OPEN';
}

/** When an OPEN breaker's cooldown ends (epoch ms), or null if it is not OPEN or the time is unreadable. */
export function cooldownEndsAt(state: BreakerState, thresholds: BreakerThresholds): number | null {
  if (state.state !== 'OPEN') return null;
  const openedAt = Date.parse(state.opened_at ?? state.last_change);
  return Number.isNaN(openedAt) ? null : openedAt + thresholds.cooldownMinutes * 60_000;
}

/** At the top of each loop: an OPEN breaker auto-resets, or moves to HALF_OPEN after its cooldown. */
export function applyStartupRecovery(state: BreakerState, thresholds: BreakerThresholds, now: number): BreakerResult {
  if (state.state !== 'OPEN') return { state };
  const timestamp = formatIsoTimestamp(now);
  const loop = state.current_loop ?? 0;
  if (thresholds.autoReset) {
    return {
      state: {
        ...initialBreakerState(now),
        total_opens: state.total_opens,
        reason: 'Auto-reset on startup',
        current_loop: loop,
        last_error_signature: null,
      },
      transition: { from: 'OPEN', to: 'CLOSED', reason: 'Auto-reset on startup (CB_AUTO_RESET=true)', loop, timestamp },
    };
  }
  const openedAt = Date.parse(state.opened_at ?? state.last_change);
  // Unreadable or future timestamps (clock skew) keep the breaker OPEN.
  if (Number.isNaN(openedAt) || now < openedAt) return { state };
  const elapsedMinutes = Math.floor((now - openedAt) / 60_000);
  if (elapsedMinutes < thresholds.cooldownMinutes) return { state };
  const { opened_at: _opened, ...rest } = state;
  return {
    state: { ...rest, state: 'HALF_OPEN', last_change: timestamp, reason: `Cooldown recovery: ${elapsedMinutes}m elapsed` },
    transition: {
      from: 'OPEN',
      to: 'HALF_OPEN',
      reason: `Cooldown elapsed (${elapsedMinutes}m >= ${thresholds.cooldownMinutes}m)`,
      loop,
      timestamp,
    },
  };
}

/** Record one loop's outcome (Bash `record_loop_result`). */
export function nextBreakerState(state: BreakerState, observation: BreakerObservation, thresholds: BreakerThresholds, now: number): BreakerResult {
  const timestamp = formatIsoTimestamp(now);
  const o = observation;
  const permissionDenials = o.hasPermissionDenials ? state.consecutive_permission_denials + 1 : 0;
  // What the agent says (EXIT_SIGNAL, completion words, FILES_MODIFIED) is not progress: an
  // agent that changes nothing and claims work would otherwise run for ever.
  const progress = o.progress || o.planProgress === true;
  let noProgress = state.consecutive_no_progress;
  let lastProgressLoop = state.last_progress_loop;
  let questionHoldUsed = state.question_hold_used === true;
  if (progress) {
    noProgress = 0;
    lastProgressLoop = o.loop;
    questionHoldUsed = false;
  } else if (o.askingQuestions && !o.failed && !questionHoldUsed) {
    questionHoldUsed = true;
  } else {
    noProgress += 1;
  }
  const previousSignature = state.last_error_signature ?? null;
  const sameError = o.errorSignature === null || o.planProgress === true ? 0 : o.errorSignature === previousSignature ? state.consecutive_same_error + 1 : 1;

  const decided = decideTransition(state.state, {
    permissionDenials,
    noProgress,
    sameError,
    progress,
    thresholds,
  });
  const to = decided?.to ?? state.state;
  const next: BreakerState = {
    state: to,
    last_change: timestamp,
    consecutive_no_progress: noProgress,
    consecutive_same_error: sameError,
    consecutive_permission_denials: permissionDenials,
    last_progress_loop: lastProgressLoop,
    total_opens: state.total_opens + (to === 'OPEN' && state.state !== 'OPEN' ? 1 : 0),
    // Staying OPEN keeps the reason it opened with (Bash overwrote it with a generic text).
    reason: decided?.reason ?? (state.state === 'OPEN' ? state.reason : ''),
    current_loop: o.loop,
    last_error_signature: o.errorSignature,
    ...(questionHoldUsed ? { question_hold_used: true } : {}),
    ...(state.seen_content ? { seen_content: state.seen_content } : {}),
  };
  if (to === 'OPEN') next.opened_at = state.state === 'OPEN' && state.opened_at ? state.opened_at : timestamp;
  if (!decided) return { state: next };
  return { state: next, transition: { from: state.state, to, reason: decided.reason, loop: o.loop, timestamp } };
}

interface Counters {
  permissionDenials: number;
  noProgress: number;
  sameError: number;
  progress: boolean;
  thresholds: BreakerThresholds;
}

function decideTransition(from: BreakerStateName, c: Counters): { to: BreakerStateName; reason: string } | null {
  const t = c.thresholds;
  if (from === 'OPEN') return null;
  if (c.permissionDenials >= t.permissionDenials) {
    return {
      to: 'OPEN',
      reason: `Permission denied in ${c.permissionDenials} consecutive loops - update ALLOWED_TOOLS in .ralphrc`,
    };
  }
  if (from === 'CLOSED') {
    if (c.noProgress >= t.noProgress) {
      return { to: 'OPEN', reason: `No progress detected in ${c.noProgress} consecutive loops` };
    }
    if (c.sameError >= t.sameError) {
      return { to: 'OPEN', reason: `Same error repeated in ${c.sameError} consecutive loops` };
    }
    if (c.noProgress >= MONITORING_AFTER) {
      return { to: 'HALF_OPEN', reason: `Monitoring: ${c.noProgress} loops without progress` };
    }
    return null;
  }
  if (c.progress) return { to: 'CLOSED', reason: 'Progress detected, circuit recovered' };
  if (c.noProgress >= t.noProgress) {
    return { to: 'OPEN', reason: `No recovery, opening circuit after ${c.noProgress} loops` };
  }
  if (c.sameError >= t.sameError) {
    return { to: 'OPEN', reason: `Same error repeated in ${c.sameError} consecutive loops` };
  }
  return null;
}

export function toHistoryEntry(transition: BreakerTransition): BreakerHistoryEntry {
  return {
    timestamp: transition.timestamp,
    loop: transition.loop,
    from_state: transition.from,
    to_state: transition.to,
    reason: transition.reason,
  };
}

/**
 * A stable signature for "the same error": lower-cased first line, with numbers, ids, hex,
 * quoted strings and paths replaced, so "timeout after 31s in /tmp/a1" and "… 29s in /tmp/b7"
 * are the same error while "Invalid API key" and "ECONNRESET" are not.
 */
export function errorSignatureOf(message: string | null | undefined): string | null {
  const line = (message ?? '').trim().split('\n')[0]?.trim() ?? '';
  if (line === '') return null;
  return line
    .toLowerCase()
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/\b(?:req|msg|toolu)_[0-9a-z]+\b/g, '<id>')
    .replace(/\b[0-9a-f]{7,}\b/g, '<hex>')
    .replace(/(?:[a-z]:)?(?:[./~][\w.-]*)?(?:\/[\w.@-]+)+/g, '<path>')
    .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, '<str>')
    .replace(/\d+(?:\.\d+)?/g, '<n>')
    .replace(/\s+/g, ' ')
    .slice(0, 200);
}

/** The breaker opened by the same-failures check, in the breaker's own shape and history. */
export function openBreakerForSameFailures(state: BreakerState, reason: string, loop: number, now: number): BreakerResult {
  const timestamp = formatIsoTimestamp(now);
  if (state.state === 'OPEN') return { state };
  return {
    state: {
      ...state,
      state: 'OPEN',
      last_change: timestamp,
      total_opens: state.total_opens + 1,
      reason,
      current_loop: loop,
      opened_at: timestamp,
    },
    transition: { from: state.state, to: 'OPEN', reason, loop, timestamp },
  };
}
