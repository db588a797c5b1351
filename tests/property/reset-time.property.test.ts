// Property tests of the reset-time parser: never throws; an epoch, a relative time, a wall-clock
// time in any zone (with a weekday or a date) always resolves to that moment, the next one
// after now; impossible times and unknown zones give null; the wait is always positive.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeUsageLimitWait, MAX_STATED_WAIT_MS, parseResetTime, RESET_PAST_GRACE_MS } from '../../lib/limits/reset-time.js';

const RUNS = 300;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const nowArb = fc.integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2035-12-31T00:00:00Z') });
const ZONES = [
  'UTC',
  'Europe/Lisbon',
  'Europe/Budapest',
  'America/Los_Angeles',
  'America/Bogota',
  'Asia/Kolkata',
  'Australia/Adelaide',
  'Pacific/Chatham',
  'Asia/Tokyo',
];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function wallClock(epoch: number, zone: string) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      weekday: 'short',
    })
      .formatToParts(new Date(epoch))
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    weekday: parts.weekday,
  };
}

// A stated time that falls in a DST gap does not exist; the parser moves it to the later
// offset, so the wall clock then reads one hour (Lord Howe: 30 minutes) later.
function sameWallTime(at: number, zone: string, hour: number, minute: number): boolean {
  const w = wallClock(at, zone);
  const stated = hour * 60 + minute;
  const read = w.hour * 60 + w.minute;
  return read === stated || (read - stated + 1440) % 1440 === 60;
}

const time12 = fc.record({ hour: fc.integer({ min: 1, max: 12 }), minute: fc.option(fc.integer({ min: 0, max: 59 }), { nil: undefined }), pm: fc.boolean() });
const render12 = (t: { hour: number; minute?: number; pm: boolean }) =>
  `${t.hour}${t.minute === undefined ? '' : `:${String(t.minute).padStart(2, '0')}`}${t.pm ? 'pm' : 'am'}`;
const to24 = (t: { hour: number; minute?: number; pm: boolean }) => ({ hour: (t.hour % 12) + (t.pm ? 12 : 0), minute: t.minute ?? 0 });

describe('parseResetTime (property)', () => {
  it('never throws, and gives null or a finite time', () => {
    const tokens = fc.constantFrom(
      'resets',
      'reset at',
      'resetting on',
      ' in ',
      '3h',
      '12m',
      '5:45am',
      '13pm',
      '(UTC)',
      '(Nowhere/City)',
      'Feb 30,',
      'Mon',
      '|',
      '1796017539',
      ' ',
      '·',
      'pm',
      ':',
      '(',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 120 }),
          fc.array(tokens, { maxLength: 20 }).map((t) => t.join('')),
        ),
        nowArb,
        fc.option(fc.constantFrom(...ZONES, 'Not/AZone'), { nil: undefined }),
        (text, now, zone) => {
          const at = parseResetTime(text, now, { defaultTimeZone: zone });
          expect(at === null || Number.isFinite(at)).toBe(true);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('reads the |epoch form in seconds or milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_000_000_001, max: 9_999_999_999 }), fc.boolean(), nowArb, (seconds, asMs, now) => {
        const stated = asMs ? seconds * 1000 : seconds;
        expect(parseResetTime(`Claude AI usage limit reached|${stated}`, now)).toBe(seconds * 1000);
      }),
      { numRuns: RUNS },
    );
  });

  it('reads "resets in …" as that long after now', () => {
    fc.assert(
      fc.property(nowArb, fc.nat(6), fc.nat(23), fc.nat(59), fc.constantFrom('short', 'long'), (now, d, h, m, style) => {
        const parts = style === 'short' ? [`${d}d`, `${h}h`, `${m}m`] : [`${d} days`, `${h} hours`, `${m} minutes`];
        expect(parseResetTime(`You've hit your limit · resets in ${parts.join(' ')}`, now)).toBe(now + d * DAY + h * HOUR + m * 60_000);
      }),
      { numRuns: RUNS },
    );
  });

  it('reads a wall-clock time in any zone as its next occurrence', () => {
    fc.assert(
      fc.property(nowArb, time12, fc.constantFrom(...ZONES), fc.boolean(), (now, t, zone, zoneInText) => {
        const text = `You've hit your 5-hour limit · resets ${render12(t)}${zoneInText ? ` (${zone})` : ''}`;
        const at = parseResetTime(text, now, { defaultTimeZone: zone });
        expect(at).not.toBeNull();
        expect(at!).toBeGreaterThanOrEqual(now - RESET_PAST_GRACE_MS);
        expect(at!).toBeLessThanOrEqual(now + DAY + HOUR);
        const { hour, minute } = to24(t);
        expect(sameWallTime(at!, zone, hour, minute), `${new Date(at!).toISOString()} in ${zone}`).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('reads a weekday or a date with the time, the next such moment after now', () => {
    fc.assert(
      fc.property(nowArb, time12, fc.constantFrom(...ZONES), fc.nat(6), (now, t, zone, weekday) => {
        const at = parseResetTime(`You're out of extra usage · resets ${WEEKDAYS[weekday]} ${render12(t)} (${zone})`, now);
        expect(at).not.toBeNull();
        expect(at!).toBeGreaterThanOrEqual(now - RESET_PAST_GRACE_MS);
        expect(at!).toBeLessThanOrEqual(now + 8 * DAY);
        expect(wallClock(at!, zone).weekday).toBe(WEEKDAYS[weekday]);
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(nowArb, time12, fc.constantFrom(...ZONES), fc.integer({ min: 0, max: 11 }), fc.integer({ min: 1, max: 28 }), (now, t, zone, month, day) => {
        const at = parseResetTime(`You're out of extra usage · resets ${MONTHS[month]} ${day}, ${render12(t)} (${zone})`, now);
        expect(at).not.toBeNull();
        expect(at!).toBeGreaterThanOrEqual(now - RESET_PAST_GRACE_MS);
        expect(at!).toBeLessThanOrEqual(now + 367 * DAY);
        const w = wallClock(at!, zone);
        expect([w.month, w.day]).toEqual([month + 1, day]);
      }),
      { numRuns: RUNS },
    );
  });

  it('gives null for impossible times and unknown zones', () => {
    fc.assert(
      fc.property(nowArb, fc.constantFrom('13pm', '0am', '25:00', '3:75pm', '3', '3pm (Nowhere/City)', '5:45am (Mars/Olympus)'), (now, bad) => {
        expect(parseResetTime(`You've hit your limit · resets ${bad}`, now, { defaultTimeZone: 'UTC' })).toBeNull();
      }),
      { numRuns: 100 },
    );
  });
});

describe('computeUsageLimitWait (property)', () => {
  it('always waits a positive time: the stated time plus the margin, or the fallback', () => {
    fc.assert(
      fc.property(
        nowArb,
        fc.option(fc.oneof(fc.integer({ min: -10 * DAY, max: 20 * DAY }), fc.constant(Number.NaN)), { nil: null }),
        fc.integer({ min: 1, max: 10 * 60_000 }),
        fc.integer({ min: 1, max: 3 * HOUR }),
        (now, offset, marginMs, fallbackMs) => {
          const resetAt = offset === null ? null : now + offset;
          const wait = computeUsageLimitWait({ resetAt, now, marginMs, fallbackMs });
          expect(wait.waitMs).toBeGreaterThan(0);
          expect(wait.resumeAt).toBe(now + wait.waitMs);
          if (offset === null || Number.isNaN(offset) || offset > MAX_STATED_WAIT_MS) {
            expect(wait).toEqual({ resumeAt: now + fallbackMs, waitMs: fallbackMs, source: 'fallback' });
          } else {
            expect(wait.source).toBe('stated');
            expect(wait.resumeAt).toBe(Math.max(resetAt!, now) + marginMs);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
