// Reset-time parsing for usage limits: turns what the Claude CLI says about when a limit
// resets ("|1750708800", "resets 5:45am (UTC)", "resets Feb 4, 8pm (Europe/Budapest)",
// "resets in 3h 12m", "Your limit will reset at 3pm (America/Bogota).") into an epoch, and
// decides how long to wait. Pure: `now` is passed in; zones are resolved with Intl only.

export interface ParseResetTimeOptions {
  /** IANA zone for times stated without one; default: the process's local zone. */
  defaultTimeZone?: string;
}

/**
 * USAGE_LIMIT_MARGIN_SECONDS and USAGE_LIMIT_WAIT_MINUTES in milliseconds. Always passed in:
 * their defaults live in the config schema only, so the loop and every view agree.
 */
export interface UsageLimitWaitSettings {
  /** Added to a stated reset time (the CLI truncates it to the minute). */
  marginMs: number;
  /** Used when no time was stated or the stated one is not believable. */
  fallbackMs: number;
}

export interface UsageLimitWaitOptions extends UsageLimitWaitSettings {
  resetAt: number | null | undefined;
  now: number;
}

export interface UsageLimitWaitResult {
  resumeAt: number;
  waitMs: number;
  source: 'stated' | 'fallback';
}

/** A stated reset further away than this is treated as garbage (weekly limits are ≤ 7 days). */
export const MAX_STATED_WAIT_MS = 8 * 24 * 60 * 60_000;
/**
 * A wall-clock time up to this far in the past still means "today": the CLI truncates the
 * reset to the minute (05:45:39 prints as 5:45am), so at 05:45:10 "resets 5:45am" is now,
 * not tomorrow.
 */
export const RESET_PAST_GRACE_MS = 5 * 60_000;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const EPOCH_RE = /\|\s*(\d{9,13})\b/;
const CLAUSE_RE = /\breset(?:s|ting)?\b(?:\s+(?:at|on))?\s+/gi;
const RELATIVE_RE = /^in\s+((?:\d+\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b[\s,]*(?:and\s+)?)+)/i;
const RELATIVE_PART_RE = /(\d+)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b/gi;
const ABSOLUTE_RE = new RegExp(
  String.raw`^(?:(?<wd>${WEEKDAYS.join('|')})[a-z]*\.?,?\s+)?` +
    String.raw`(?:(?<mon>${MONTHS.join('|')})[a-z]*\.?\s+(?<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?:at\s+)?)?` +
    String.raw`(?<h>\d{1,2})(?::(?<mi>\d{2}))?\s*(?<ap>[ap]\.?m\.?)?(?![\w:])` +
    String.raw`(?:\s*\((?<tz>[^)]{1,64})\))?`,
  'i',
);

/** The epoch (ms) at which the stated limit resets, or null when the text states no time. */
export function parseResetTime(text: string, now: number, options: ParseResetTimeOptions = {}): number | null {
  const epoch = EPOCH_RE.exec(text);
  if (epoch?.[1]) {
    const n = Number(epoch[1]);
    return n > 1e12 ? n : n * 1000;
  }
  for (const clause of text.matchAll(CLAUSE_RE)) {
    const rest = text.slice((clause.index ?? 0) + clause[0].length);
    const parsed = parseRelative(rest, now) ?? parseAbsolute(rest, now, options);
    if (parsed !== null) return parsed;
  }
  return null;
}

/** When to try again after a usage limit: the stated time plus a margin, never in the past. */
export function computeUsageLimitWait(options: UsageLimitWaitOptions): UsageLimitWaitResult {
  const { resetAt, now, marginMs, fallbackMs } = options;
  const stated = resetAt === null || resetAt === undefined || !Number.isFinite(resetAt) ? null : resetAt;
  if (stated === null || stated - now > MAX_STATED_WAIT_MS) {
    return { resumeAt: now + fallbackMs, waitMs: fallbackMs, source: 'fallback' };
  }
  // A reset already behind us (stale text, clock skew) still gets the margin, never 0 or less.
  const resumeAt = Math.max(stated, now) + marginMs;
  return { resumeAt, waitMs: resumeAt - now, source: 'stated' };
}

/**
 * The longest wait computeUsageLimitWait can choose with these settings: a stated reset at the
 * believable maximum plus the margin, or the fallback. A stored wait that ends later was not
 * chosen by ralph.
 */
export function longestUsageLimitWaitMs({ marginMs, fallbackMs }: UsageLimitWaitSettings): number {
  return Math.max(MAX_STATED_WAIT_MS + marginMs, fallbackMs);
}

function parseRelative(rest: string, now: number): number | null {
  const m = RELATIVE_RE.exec(rest);
  if (!m?.[1]) return null;
  let ms = 0;
  for (const part of m[1].matchAll(RELATIVE_PART_RE)) {
    const n = Number(part[1]);
    const unit = (part[2] ?? '').toLowerCase();
    if (unit.startsWith('d')) ms += n * 86_400_000;
    else if (unit.startsWith('h')) ms += n * 3_600_000;
    else if (unit.startsWith('m')) ms += n * 60_000;
    else ms += n * 1000;
  }
  return now + ms;
}

function parseAbsolute(rest: string, now: number, options: ParseResetTimeOptions): number | null {
  const g = ABSOLUTE_RE.exec(rest)?.groups;
  if (!g?.h) return null;
  const time = toHourMinute(g.h, g.mi, g.ap);
  if (!time) return null;
  const named = g.tz ?? options.defaultTimeZone;
  const zone = named === undefined ? undefined : parseZoneName(named);
  // An unknown zone name would put the wait hours off: better the fallback wait.
  if (zone === null) return null;

  const today = zonedDateParts(now, zone);
  if (g.mon && g.day) {
    const month = MONTHS.indexOf(g.mon.slice(0, 3).toLowerCase()) + 1;
    const day = Number(g.day);
    for (const year of [today.year, today.year + 1]) {
      const at = wallTimeToEpoch({ year, month, day, ...time }, zone);
      if (at >= now - RESET_PAST_GRACE_MS) return at;
    }
    return null;
  }
  const weekday = g.wd ? WEEKDAYS.indexOf(g.wd.slice(0, 3).toLowerCase()) : null;
  for (let offset = 0; offset <= 7; offset++) {
    const date = addDays(today, offset);
    if (weekday !== null && dayOfWeek(date) !== weekday) continue;
    const at = wallTimeToEpoch({ ...date, ...time }, zone);
    if (at >= now - RESET_PAST_GRACE_MS) return at;
  }
  return null;
}

function toHourMinute(h: string, mi: string | undefined, ap: string | undefined): { hour: number; minute: number } | null {
  let hour = Number(h);
  const minute = mi === undefined ? 0 : Number(mi);
  if (minute > 59) return null;
  if (ap) {
    if (hour < 1 || hour > 12) return null;
    const pm = ap.toLowerCase().startsWith('p');
    hour = (hour % 12) + (pm ? 12 : 0);
  } else {
    // A bare number ("resets 3") is ambiguous; 24-hour times need minutes ("17:45").
    if (mi === undefined || hour > 23) return null;
  }
  return { hour, minute };
}

function addDays(date: ZonedDate, days: number): ZonedDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

function dayOfWeek(date: ZonedDate): number {
  return new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
}

// --- wall-clock time in a zone, with Intl only (no dependency) ---

interface ZonedDate {
  year: number;
  month: number;
  day: number;
}

interface WallTime extends ZonedDate {
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** A valid IANA zone name (or UTC/GMT), or null. */
function parseZoneName(name: string): string | null {
  const zone = name.trim();
  try {
    formatterFor(zone);
    return zone;
  } catch {
    return null;
  }
}

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Wall-clock fields of an instant; `zone` undefined means the process's local zone. */
function zonedParts(epoch: number, zone: string | undefined): WallTime & { second: number } {
  if (zone === undefined) {
    const d = new Date(epoch);
    return {
      year: d.getFullYear(),
      month: d.getMonth() + 1,
      day: d.getDate(),
      hour: d.getHours(),
      minute: d.getMinutes(),
      second: d.getSeconds(),
    };
  }
  const out: Record<string, number> = {};
  for (const p of formatterFor(zone).formatToParts(new Date(epoch))) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  return {
    year: out.year ?? 1970,
    month: out.month ?? 1,
    day: out.day ?? 1,
    hour: (out.hour ?? 0) % 24,
    minute: out.minute ?? 0,
    second: out.second ?? 0,
  };
}

function zonedDateParts(epoch: number, zone: string | undefined): ZonedDate {
  const { year, month, day } = zonedParts(epoch, zone);
  return { year, month, day };
}

/** The instant a wall-clock time names in a zone (DST gaps resolve to the later offset). */
function wallTimeToEpoch(wall: WallTime, zone: string | undefined): number {
  if (zone === undefined) {
    return new Date(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute).getTime();
  }
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  const first = asUtc - offsetAt(asUtc, zone);
  const second = asUtc - offsetAt(first, zone);
  if (second === first) return first;
  // The offset changes near this time: a repeated hour (both instants read the wall time) or a
  // skipped one (neither does; the later instant reads it an hour on, as the clock jumped).
  const reads = (epoch: number): boolean => {
    const p = zonedParts(epoch, zone);
    return p.hour === wall.hour && p.minute === wall.minute;
  };
  if (reads(second)) return second;
  if (reads(first)) return first;
  return Math.max(first, second);
}

function offsetAt(epoch: number, zone: string): number {
  const p = zonedParts(epoch, zone);
  const wallAsUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wallAsUtc - Math.floor(epoch / 1000) * 1000;
}
