// The circuit breaker's state for a run and outside one: `.circuit_breaker_state` (the ledger's
// view) with its bounded history, loaded range-checked (lib/breaker/guard-ranges.ts: the agent can
// write these files, so a value ralph could not have written is reset with a warning), held for
// the run and written through.

import { basename } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { applyStartupRecovery, toHistoryEntry, type BreakerResult, type BreakerState, type BreakerThresholds } from './circuit-breaker.js';
import { checkBreakerState } from './guard-ranges.js';
import { HeldState } from '../state/held-state.js';
import type { HeldHistory } from '../state/history.js';
import { afterLedgerWrites, readLedger, saveLedgerBreaker } from '../state/ledger.js';
import { readContentMemory, saveContentMemory } from '../state/content-memory-file.js';
import type { RalphPaths } from '../state/paths.js';
import { describeProblems, warnRange } from '../state/range-warning.js';
import type { StateReadOptions } from '../state/state-file.js';
import type { CircuitBreakerFile, CircuitBreakerHistoryEntry } from '../state/schemas.js';
import { appendCircuitBreakerHistory, holdCircuitBreakerHistory, loadCircuitBreaker, saveCircuitBreaker } from '../state/store.js';

/**
 * The breaker (with the content ids seen in the run), range-checked. The ledger's wins over
 * `.circuit_breaker_state`, its view: a view that differs (rewritten, deleted) is reported and,
 * unless the reader is read-only, written again from the ledger, as is a repaired state. The
 * content ids are kept beside the ledger in a file of their own (state/content-memory-file.ts).
 */
export function loadBreaker(paths: RalphPaths, options: StateReadOptions): BreakerState {
  const view = loadCircuitBreaker(paths, options);
  const kept = paths.ledger ? (readLedger(paths.ledger, (message) => options.logger.warn(message))?.breaker ?? undefined) : undefined;
  const differs = kept !== undefined && (view.status === 'missing' || !isDeepStrictEqual(view.value, kept));
  if (differs) {
    const what = view.status === 'missing' ? 'is missing' : `says ${describeBreaker(view.value)}`;
    options.logger.warn(`${basename(paths.circuitBreakerState)} ${what}; ralph's ledger holds ${describeBreaker(kept)}, and the ledger counts`);
  }
  const checked = checkBreakerState(kept ?? view.value, options.clock.now());
  const state = withContentMemory(paths, checked.value, options);
  if (checked.problems.length > 0) warnRange(paths.circuitBreakerState, describeProblems(checked.problems), options);
  if ((differs || checked.problems.length > 0) && options.quarantine !== false) saveBreaker(paths, { state }, options);
  return state;
}

/** The content ids saved beside the ledger; without that file, those the breaker itself holds (a ledger of an earlier version). */
function withContentMemory(paths: RalphPaths, state: BreakerState, options: StateReadOptions): BreakerState {
  const saved = paths.ledger ? readContentMemory(paths.ledger, (message) => options.logger.warn(message)) : undefined;
  if (saved === undefined) return state;
  const { seen_content: _held, ...rest } = state;
  return saved === null ? rest : { ...rest, seen_content: saved };
}

/**
 * The breaker held for the run (loadBreaker's), written through to the ledger and its view. A
 * decision is held whole: its state written even when unchanged (the view may have been
 * rewritten), its transition appended to the history.
 */
export class HeldBreaker extends HeldState<BreakerState> {
  constructor(
    paths: RalphPaths,
    loaded: BreakerState,
    /** `.circuit_breaker_history`, held too: read once, never read back mid-run. */
    readonly history: HeldHistory<CircuitBreakerHistoryEntry>,
    options: StateReadOptions,
  ) {
    super(loaded, (next) => saveBreaker(paths, { state: next }, options));
  }

  hold(result: BreakerResult): void {
    if (result.state === this.value) this.flush();
    else this.set(result.state);
    if (result.transition) this.history.append({ ...toHistoryEntry(result.transition) });
  }
}

/** The breaker and its history as the run starts, held for it. */
export function loadHeldBreaker(paths: RalphPaths, options: StateReadOptions): HeldBreaker {
  return new HeldBreaker(paths, loadBreaker(paths, options), holdCircuitBreakerHistory(paths, options), options);
}

/**
 * Outside a run (--reset-circuit, --circuit-status): saves the new state to the ledger and its
 * view and, on a transition, appends it to the history (last 100), reading the file once.
 */
export function saveBreaker(paths: RalphPaths, result: BreakerResult, options: StateReadOptions): void {
  const { last_error_signature, seen_content, ...rest } = result.state;
  const file = { ...rest, ...(last_error_signature ? { last_error_signature } : {}) };
  if (paths.ledger) saveLedgerBreaker(paths.ledger, paths.projectDir, file);
  afterLedgerWrites(() => {
    if (paths.ledger) saveContentMemory(paths.ledger, seen_content);
    // Without a ledger the view is the only copy: the ids stay in it.
    saveCircuitBreaker(paths, !paths.ledger && seen_content ? { ...file, seen_content } : file);
    if (result.transition) appendCircuitBreakerHistory(paths, { ...toHistoryEntry(result.transition) }, options);
  });
}

function describeBreaker(breaker: CircuitBreakerFile): string {
  return `${breaker.state}, ${breaker.consecutive_no_progress} loop(s) without progress, ${breaker.total_opens} open(s)`;
}

/** Applies cooldown / auto-reset to the breaker, and saves when that changed it. */
export function recoverBreaker(paths: RalphPaths, current: BreakerState, thresholds: BreakerThresholds, options: StateReadOptions): BreakerResult {
  const result = applyStartupRecovery(current, thresholds, options.clock.now());
  if (result.transition) saveBreaker(paths, result, options);
  return result;
}
