// Hourly rate window: calls and tokens per CLOCK hour in local time, like the Bash tool
// (`.call_count`, `.token_count`, `.last_reset` = `date +%Y%m%d%H`), so a restart keeps the
// count and either version can continue the other's hour. A call is counted before it is made
// (Bash #196). Pure: `now` is passed in; hours are the process's local time zone.

export interface RateWindowState {
  calls: number;
  tokens: number;
  /** `YYYYMMDDHH`, local time (Bash `.last_reset`). */
  lastReset: string;
}

export interface RateLimits {
  /** MAX_CALLS_PER_HOUR / --calls */
  maxCalls: number;
  /** MAX_TOKENS_PER_HOUR; 0 or less disables it (Bash default). */
  maxTokens: number;
}

export type RateLimitCheck = { ok: true } | { ok: false; reason: 'calls' | 'tokens'; resetAt: number };

/** The clock hour `now` falls in, as Bash writes it: `2026113004`. */
export function hourKey(now: number): string {
  const d = new Date(now);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}${pad(d.getHours())}`;
}

/**
 * The clock hour `ms` falls in for a zone `offsetMinutes` behind UTC (Date#getTimezoneOffset's
 * sign): the hour a window saved in another time zone was named in.
 */
export function hourKeyAtOffset(ms: number, offsetMinutes: number): string {
  const d = new Date(ms - offsetMinutes * 60_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}`;
}

export function initialRateWindow(now: number): RateWindowState {
  return { calls: 0, tokens: 0, lastReset: hourKey(now) };
}

/** A new clock hour zeroes both counters (Bash `init_call_tracking`). */
export function rollWindow(state: RateWindowState, now: number): RateWindowState {
  const key = hourKey(now);
  return state.lastReset === key ? state : { calls: 0, tokens: 0, lastReset: key };
}

/** A wall-clock time with a reading of the boot clock taken at the same moment. */
export interface ClockAnchor {
  wallMs: number;
  bootId: string;
  uptimeMs: number;
}

/**
 * The real time now, measured from an earlier anchor of the same boot: its wall-clock time plus
 * the uptime since. Undefined across a reboot or without readings (then only the wall clock tells).
 */
export function realTimeSince(anchor: ClockAnchor | undefined, reading: { bootId: string; uptimeMs: number } | undefined): number | undefined {
  if (!anchor || !reading || reading.bootId !== anchor.bootId) return undefined;
  return anchor.wallMs + Math.max(0, reading.uptimeMs - anchor.uptimeMs);
}

/**
 * rollWindow by real time: a new hour opens only when the boot clock says real time has left the
 * window's hour since `anchor` (the last save); a wall clock set back or forward meanwhile opens
 * none, and the window takes the wall clock's hour as its name so the next roll agrees with it.
 */
export function rollWindowByRealTime(
  state: RateWindowState,
  now: number,
  anchor: ClockAnchor | undefined,
  reading: { bootId: string; uptimeMs: number } | undefined,
): RateWindowState {
  const realNow = realTimeSince(anchor, reading);
  if (realNow === undefined) return rollWindow(state, now);
  const key = hourKey(now);
  if (hourKey(realNow) !== state.lastReset) return { calls: 0, tokens: 0, lastReset: key };
  return state.lastReset === key ? state : { ...state, lastReset: key };
}

/** May a call start now? `state` should already be rolled to `now`'s hour. */
export function checkRateLimit(state: RateWindowState, limits: RateLimits, now: number): RateLimitCheck {
  if (state.calls >= limits.maxCalls) return { ok: false, reason: 'calls', resetAt: nextResetTime(now) };
  if (limits.maxTokens > 0 && state.tokens >= limits.maxTokens) {
    return { ok: false, reason: 'tokens', resetAt: nextResetTime(now) };
  }
  return { ok: true };
}

/** Count a call about to start. */
export function countCall(state: RateWindowState): RateWindowState {
  return { ...state, calls: state.calls + 1 };
}

/** Add a finished call's tokens (Bash counts input + output, not cache). */
export function addTokens(state: RateWindowState, tokens: number): RateWindowState {
  const n = Number.isFinite(tokens) && tokens > 0 ? Math.floor(tokens) : 0;
  return { ...state, tokens: state.tokens + n };
}

/** The start of the next local clock hour (epoch ms): when the window resets. */
export function nextResetTime(now: number): number {
  const d = new Date(now);
  // The Date constructor normalises hour 24 and walks DST changes correctly.
  return new Date(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours() + 1, 0, 0, 0).getTime();
}

/** status.json `next_reset`: the real reset time as local `HH:MM:SS` (Bash wrote now + 1 h). */
export function formatNextReset(now: number): string {
  return formatClockTime(nextResetTime(now));
}

/** Local wall-clock `HH:MM:SS` of an instant. */
export function formatClockTime(epochMs: number): string {
  const d = new Date(epochMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
