// Persistence for the guards: the hourly call/token window in the Bash tool's files, the
// circuit breaker with its bounded history, a pending usage-limit wait (ours; survives a
// restart) and the run's spend (ours). Pure decisions live in lib/core; this file only maps
// them to files. Every value read back is range-checked (lib/core/guard-ranges.ts): the agent
// can write these files, so a value ralph could not have written is reset with a warning.

import { rmSync } from 'node:fs';
import {
  applyStartupRecovery,
  toHistoryEntry,
  type BreakerResult,
  type BreakerState,
  type BreakerThresholds,
} from '../core/circuit-breaker.js';
import { checkBreakerState, checkRateWindow, usageWaitProblem, type RangeProblem } from '../core/guard-ranges.js';
import { initialSpendState } from '../core/spend.js';
import { initialRateWindow, type RateWindowState } from '../core/rate-window.js';
import { writeJsonAtomic } from '../state/atomic-write.js';
import { readIntegerFile, readTrimmedText, writeIntegerFile } from '../state/integer-file.js';
import type { RalphPaths } from '../state/paths.js';
import { readStateFile, type StateReadOptions, type StateReadResult } from '../state/state-file.js';
import { runStateFileSchema, usageWaitFileSchema, type RunStateFile, type UsageWaitFile } from '../state/schemas.js';
import { appendCircuitBreakerHistory, loadCircuitBreaker, saveCircuitBreaker } from '../state/store.js';
import { basename } from 'node:path';
import { HeldState } from './held-state.js';

/** The hourly window from the Bash tool's three files, range-checked (the loop writes the fix back). */
export function loadRateWindow(paths: RalphPaths, options: StateReadOptions): RateWindowState {
  const checked = checkRateWindow(
    {
      calls: readIntegerFile(paths.callCount, options),
      tokens: readIntegerFile(paths.tokenCount, options),
      lastReset: readTrimmedText(paths.lastReset) ?? '',
    },
    options.clock.now(),
  );
  const files = { calls: paths.callCount, tokens: paths.tokenCount, lastReset: paths.lastReset };
  for (const { field, problem } of checked.problems) warnRange(files[field], problem, options);
  return checked.value;
}

/** The window held for the run (a fresh one when no file names an hour), written through to its files. */
export function holdRateWindow(paths: RalphPaths, loaded: RateWindowState, now: number): HeldState<RateWindowState> {
  return new HeldState(loaded.lastReset ? loaded : initialRateWindow(now), (next, previous) => saveRateWindow(paths, next, previous));
}

/** Writes the Bash tool's three files, each only when its value changed (or `previous` is unknown). */
export function saveRateWindow(paths: RalphPaths, window: RateWindowState, previous?: RateWindowState): void {
  if (previous?.calls !== window.calls) writeIntegerFile(paths.callCount, window.calls);
  if (previous?.tokens !== window.tokens) writeIntegerFile(paths.tokenCount, window.tokens);
  if (previous?.lastReset !== window.lastReset) writeIntegerFile(paths.lastReset, Number(window.lastReset) || 0);
}

/** The breaker, range-checked; a repaired state is saved unless the reader is read-only. */
export function loadBreaker(paths: RalphPaths, options: StateReadOptions): BreakerState {
  const { value } = loadCircuitBreaker(paths, options);
  const checked = checkBreakerState(value, options.clock.now());
  if (checked.problems.length === 0) return checked.value;
  warnRange(paths.circuitBreakerState, describeProblems(checked.problems), options);
  if (options.quarantine !== false) saveBreaker(paths, { state: checked.value }, options);
  return checked.value;
}

/** Saves the new state and, on a transition, appends it to the history (last 100). */
export function saveBreaker(paths: RalphPaths, result: BreakerResult, options: StateReadOptions): void {
  const { last_error_signature, ...rest } = result.state;
  saveCircuitBreaker(paths, { ...rest, ...(last_error_signature ? { last_error_signature } : {}) });
  if (result.transition) appendCircuitBreakerHistory(paths, { ...toHistoryEntry(result.transition) }, options);
}

/** Applies cooldown / auto-reset to the breaker, and saves when that changed it. */
export function recoverBreaker(
  paths: RalphPaths,
  current: BreakerState,
  thresholds: BreakerThresholds,
  options: StateReadOptions,
): BreakerResult {
  const result = applyStartupRecovery(current, thresholds, options.clock.now());
  if (result.transition) saveBreaker(paths, result, options);
  return result;
}

export type { UsageWaitFile };

/**
 * The pending usage-limit wait. One that ends later than the longest wait ralph chooses
 * (`maxWaitMs`, from the configured margin and fallback) is dropped with a warning, and its
 * file removed unless the reader is read-only.
 */
export function loadUsageWait(
  paths: RalphPaths,
  options: StateReadOptions,
  maxWaitMs: number,
): UsageWaitFile | undefined {
  const wait = readStateFile(paths.usageLimitWait, usageWaitFileSchema.nullable(), null, options).value;
  if (!wait) return undefined;
  const problem = usageWaitProblem(wait, options.clock.now(), maxWaitMs);
  if (!problem) return wait;
  warnRange(paths.usageLimitWait, `resume_at ${problem}; not waiting for it`, options);
  if (options.quarantine !== false) clearUsageWait(paths);
  return undefined;
}

export function saveUsageWait(paths: RalphPaths, wait: UsageWaitFile): void {
  writeJsonAtomic(paths.usageLimitWait, wait);
}

export function clearUsageWait(paths: RalphPaths): void {
  rmSync(paths.usageLimitWait, { force: true });
}


/** `.run_state` (ours): the spend of one run, kept across restarts while that run goes on. */
export type RunState = RunStateFile;

export function newRunState(now: number, runId?: string): RunState {
  return { ...(runId ? { run_id: runId } : {}), started_at_ms: now, active_ms: 0, spend: initialSpendState(now) };
}

export function saveRunState(paths: RalphPaths, state: RunState): void {
  writeJsonAtomic(paths.runState, state);
}

/** The run state, or why there is none: missing, or unreadable (then set aside with a warning naming it). */
export function loadRunState(paths: RalphPaths, options: StateReadOptions): { value: RunState | undefined; status: StateReadResult<unknown>['status'] } {
  const result = readStateFile(paths.runState, runStateFileSchema.nullable(), null, options);
  return { value: result.value ?? undefined, status: result.status };
}

function warnRange(path: string, problem: string, options: StateReadOptions): void {
  options.logger.warn(`State file ${basename(path)} holds a value ralph could not have written: ${problem}`);
}

function describeProblems(problems: RangeProblem[]): string {
  return problems.map(({ field, problem }) => `${field} ${problem}`).join('; ');
}
