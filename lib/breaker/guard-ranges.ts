// Range rules for guard values read back from disk. The agent can write every file under
// .ralph/, so a count, a timestamp or a wait is believed only inside the range ralph itself
// could have produced: counts are whole numbers from 0 to a bound no loop can reach,
// timestamps are no later than now plus a small clock skew, and a wait ends no later than the
// longest wait ralph would choose. Each check returns the repaired value and, when it had to
// repair, a problem per field; the readers in lib/state and lib/loop warn, naming the file.
// Pure: `now` is passed in.

import type { BreakerState } from './circuit-breaker.js';
import { formatIsoTimestamp } from '../state/timestamps.js';
import { hourKey, type RateWindowState } from '../limits/rate-window.js';

/** How far in the future a timestamp may be before it is not believed (clock skew, NFS). */
export const CLOCK_SKEW_MS = 5 * 60_000;
/** More calls than any agent can start in one clock hour (one per 36 ms). */
export const MAX_CALLS_IN_WINDOW = 100_000;
/** More tokens than any account can use in one clock hour. */
export const MAX_TOKENS_IN_WINDOW = 1_000_000_000_000;
/** More loops than any run makes: the breaker's counters and loop numbers stay below it. */
export const MAX_BREAKER_COUNT = 10_000_000;

export interface RangeProblem<F extends string = string> {
  field: F;
  /** What was wrong and what it was reset to, e.g. `-5 is below 0; reset to 0`. */
  problem: string;
}

export interface CheckedValue<T, F extends string = string> {
  value: T;
  problems: RangeProblem<F>[];
}

/** Why `value` is not a count in 0…max, or undefined when it is one. */
export function countProblem(value: number, max: number): string | undefined {
  if (!Number.isSafeInteger(value)) return `${value} is not a whole number`;
  if (value < 0) return `${value} is below 0`;
  if (value > max) return `${value} is above the largest possible ${max}`;
  return undefined;
}

/** Why `epochMs` is not a past instant (allowing the clock skew), or undefined. */
export function futureTimeProblem(epochMs: number, now: number): string | undefined {
  if (!Number.isFinite(epochMs)) return 'not a time';
  if (epochMs > now + CLOCK_SKEW_MS) return `${new Date(epochMs).toISOString()} is in the future`;
  return undefined;
}

/** Why a wait ending at `endMs` is longer than `maxWaitMs` from now, or undefined. */
export function waitEndProblem(endMs: number, now: number, maxWaitMs: number): string | undefined {
  if (!Number.isFinite(endMs)) return 'not a time';
  if (endMs > now + maxWaitMs + CLOCK_SKEW_MS) {
    return `${new Date(endMs).toISOString()} is further away than the longest wait ralph chooses (${Math.round(maxWaitMs / 3_600_000)} h)`;
  }
  return undefined;
}

export type RateWindowField = keyof RateWindowState;

/**
 * The hourly window as read from `.call_count`, `.token_count` and `.last_reset`. A bad count
 * becomes 0; a window hour in the future becomes the current hour and keeps the count (a future
 * hour must not start a fresh window); one that is not an hour at all is a corrupt file, and a
 * new window starts from 0, as it always did.
 */
export function checkRateWindow(window: RateWindowState, now: number): CheckedValue<RateWindowState, RateWindowField> {
  const problems: RangeProblem<RateWindowField>[] = [];
  const count = (field: 'calls' | 'tokens', max: number): number => {
    const why = countProblem(window[field], max);
    if (!why) return window[field];
    problems.push({ field, problem: `${why}; reset to 0` });
    return 0;
  };
  const calls = count('calls', MAX_CALLS_IN_WINDOW);
  const tokens = count('tokens', MAX_TOKENS_IN_WINDOW);
  const value = { calls, tokens, lastReset: window.lastReset };
  if (value.lastReset === '') return { value, problems };
  const start = hourStart(value.lastReset);
  if (start === undefined) {
    problems.push({ field: 'lastReset', problem: `"${value.lastReset.slice(0, 20)}" is not an hour (YYYYMMDDHH); starting a new window` });
    return { value: { calls: 0, tokens: 0, lastReset: hourKey(now) }, problems };
  }
  const future = futureTimeProblem(start, now);
  if (future) {
    value.lastReset = hourKey(now);
    problems.push({ field: 'lastReset', problem: `${future}; reset to the current hour ${value.lastReset}` });
  }
  return { value, problems };
}

const BREAKER_COUNTS = [
  'consecutive_no_progress',
  'consecutive_same_error',
  'consecutive_permission_denials',
  'last_progress_loop',
  'total_opens',
  'current_loop',
] as const;

/** The breaker's counters back to 0 when out of range; a future `last_change` / `opened_at` becomes now. */
export function checkBreakerState(state: BreakerState, now: number): CheckedValue<BreakerState> {
  const problems: RangeProblem[] = [];
  const value: BreakerState = { ...state };
  for (const field of BREAKER_COUNTS) {
    const why = countProblem(value[field], MAX_BREAKER_COUNT);
    if (!why) continue;
    value[field] = 0;
    problems.push({ field, problem: `${why}; reset to 0` });
  }
  for (const field of ['last_change', 'opened_at'] as const) {
    const text = value[field];
    if (!text) continue;
    const at = Date.parse(text);
    // An unreadable time is left to the breaker (it keeps an OPEN breaker OPEN); a future one
    // would hold its cooldown for ever, or end it at a time the agent chose.
    if (Number.isNaN(at)) continue;
    const why = futureTimeProblem(at, now);
    if (!why) continue;
    value[field] = formatIsoTimestamp(now);
    problems.push({ field, problem: `${why}; reset to now` });
  }
  return { value, problems };
}

export interface UsageWaitTimes {
  resume_at: string;
  resume_at_ms: number;
}

/** Why a pending usage-limit wait cannot be one ralph chose, or undefined when it can. */
export function usageWaitProblem(wait: UsageWaitTimes, now: number, maxWaitMs: number): string | undefined {
  const parsed = Date.parse(wait.resume_at);
  return waitEndProblem(wait.resume_at_ms, now, maxWaitMs) ?? (Number.isNaN(parsed) ? undefined : waitEndProblem(parsed, now, maxWaitMs));
}

/** The local instant a `YYYYMMDDHH` window key starts at, or undefined when it is not one. */
function hourStart(key: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})$/.exec(key);
  if (!m) return undefined;
  const [year, month, day, hour] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
  const at = new Date(year, month - 1, day, hour);
  if (at.getMonth() !== month - 1 || at.getDate() !== day || hour > 23) return undefined;
  return at.getTime();
}
