import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../lib/config/schema.js';
import { usageLimitWaitSettings } from '../../../lib/limits/usage-limit-settings.js';
import { computeUsageLimitWait, parseResetTime } from '../../../lib/limits/reset-time.js';
import { useTimeZone } from '../../helpers/time-zone.js';

const at = (iso: string) => Date.parse(iso);
const MIN = 60_000;
// Times stated without a zone are local: pin the process zone so the table is deterministic.
useTimeZone('UTC');

describe('parseResetTime', () => {
  it.each([
    // [text, now, expected reset]
    ["You've hit your 5-hour limit · resets 5:45am (UTC)", '2026-11-30T03:10:00Z', '2026-11-30T05:45:00Z'],
    ["You've hit your 5-hour limit · resets 5:45am (UTC)", '2026-11-30T06:00:00Z', '2026-12-01T05:45:00Z'],
    ["You've hit your weekly limit · resets 5:45am (UTC)", '2026-11-30T23:59:00Z', '2026-12-01T05:45:00Z'],
    ["You've hit your session limit · resets 12:50am (America/Los_Angeles)", '2026-11-30T03:10:00Z', '2026-11-30T08:50:00Z'],
    ["You're out of extra usage · resets Feb 4, 8pm (Europe/Budapest)", '2026-11-30T03:10:00Z', '2027-02-04T19:00:00Z'],
    ["You're out of extra usage · resets Feb 4, 8pm (Europe/Budapest)", '2027-01-10T00:00:00Z', '2027-02-04T19:00:00Z'],
    ["You've hit your limit - resets Feb 7, 11am (Asia/Seoul)/login to switch to an API usage-billed account.", '2027-02-05T00:00:00Z', '2027-02-07T02:00:00Z'],
    ["You've hit your limit · resets 1pm (Europe/Lisbon)", '2026-07-01T09:00:00Z', '2026-07-01T12:00:00Z'],
    ['Claude usage limit reached. Your limit will reset at 3pm (America/Bogota).', '2026-11-30T03:10:00Z', '2026-11-30T20:00:00Z'],
    ['Claude usage limit reached. Your limit will reset at 1 PM (Asia/Dubai).', '2026-11-30T03:10:00Z', '2026-11-30T09:00:00Z'],
    ['5-hour limit reached · resets 3pm (Europe/Stockholm) · /upgrade to Max 20x or turn on /extra-usage', '2026-11-30T03:10:00Z', '2026-11-30T14:00:00Z'],
    ['Session limit resets 4am ∙ contact an admin to keep working', '2026-11-30T03:10:00Z', '2026-11-30T04:00:00Z'],
    ['5-hour limit reached ∙ resets 3am', '2026-11-30T03:10:00Z', '2026-12-01T03:00:00Z'],
    ["You're out of extra usage · resets 9pm", '2026-11-30T03:10:00Z', '2026-11-30T21:00:00Z'],
    ['Usage limit reached · resets 17:30 (UTC)', '2026-11-30T03:10:00Z', '2026-11-30T17:30:00Z'],
    ["You've hit your weekly limit · resets Mon 9am (UTC)", '2026-11-30T10:00:00Z', '2026-12-07T09:00:00Z'],
    // New York in summer is UTC-4 (EDT), in winter UTC-5 (EST).
    ["You've hit your limit · resets 1:30am (America/New_York)", '2026-07-01T03:00:00Z', '2026-07-01T05:30:00Z'],
    ["You've hit your limit · resets 1:30am (America/New_York)", '2026-12-01T03:00:00Z', '2026-12-01T06:30:00Z'],
  ])('%s at %s → %s', (text, now, expected) => {
    expect(new Date(parseResetTime(text, at(now))!).toISOString()).toBe(new Date(at(expected)).toISOString());
  });

  it('takes a time stated a few minutes ago as today (the CLI truncates to the minute)', () => {
    expect(parseResetTime('resets 5:45am (UTC)', at('2026-11-30T05:45:30Z'))).toBe(at('2026-11-30T05:45:00Z'));
    expect(parseResetTime('resets 5:45am (UTC)', at('2026-11-30T05:52:00Z'))).toBe(at('2026-12-01T05:45:00Z'));
  });

  it('reads the old |epoch form and relative durations', () => {
    const now = at('2026-11-30T03:10:00Z');
    expect(parseResetTime('Claude AI usage limit reached|1750708800', now)).toBe(1750708800_000);
    expect(parseResetTime('Usage limit reached · resets in 3h 12m', now)).toBe(now + (3 * 60 + 12) * MIN);
    expect(parseResetTime('limit reached, resets in 45m', now)).toBe(now + 45 * MIN);
    expect(parseResetTime('resets in 2 hours and 5 minutes', now)).toBe(now + 125 * MIN);
    expect(parseResetTime('resets in 1d 2h', now)).toBe(now + 26 * 60 * MIN);
  });

  it('uses the local zone, or the given default zone, when none is stated', () => {
    const now = at('2026-11-30T03:10:00Z');
    expect(parseResetTime('resets 3pm', now)).toBe(at('2026-11-30T15:00:00Z'));
    expect(parseResetTime('resets 3pm', now, { defaultTimeZone: 'Asia/Tokyo' })).toBe(at('2026-11-30T06:00:00Z'));
    process.env.TZ = 'Asia/Kolkata';
    try {
      expect(parseResetTime('resets 3pm', now)).toBe(at('2026-11-30T09:30:00Z'));
    } finally {
      process.env.TZ = 'UTC';
    }
  });

  it('reads a time that a change to summer time skips as the hour after it, and one it repeats as a moment that has it', () => {
    // Los Angeles, 10 March 2030: 2am does not exist (1:59 PST is followed by 3:00 PDT).
    const now = at('2030-03-09T20:00:00Z');
    expect(parseResetTime('resets 2am (America/Los_Angeles)', now)).toBe(at('2030-03-10T10:00:00Z'));
    expect(parseResetTime('resets 2:30am (America/Los_Angeles)', now)).toBe(at('2030-03-10T10:30:00Z'));
    expect(parseResetTime('resets 3am (America/Los_Angeles)', now)).toBe(at('2030-03-10T10:00:00Z'));
    // 3 November 2030: 1:30am comes twice, at 08:30Z (PDT) and at 09:30Z (PST).
    const autumn = parseResetTime('resets 1:30am (America/Los_Angeles)', at('2030-11-02T12:00:00Z'));
    expect([at('2030-11-03T08:30:00Z'), at('2030-11-03T09:30:00Z')]).toContain(autumn);
  });

  it.each([
    ['no reset stated', "You've hit your monthly spend limit"],
    ['an unknown zone', "You've hit your limit · resets 3pm (Mars/Olympus)"],
    ['a bare number', 'limit resets 3 · contact an admin'],
    ['an impossible time', 'resets 13pm (UTC)'],
    ['plain prose', 'I will reset the counter later.'],
  ])('returns null for %s', (_name, text) => {
    expect(parseResetTime(text, at('2026-11-30T03:10:00Z'))).toBeNull();
  });
});

describe('computeUsageLimitWait', () => {
  const now = at('2026-11-30T03:10:00Z');
  // The config schema's defaults (USAGE_LIMIT_MARGIN_SECONDS=60, USAGE_LIMIT_WAIT_MINUTES=60).
  const defaults = usageLimitWaitSettings(defaultConfig());

  it('waits until the stated reset plus the margin', () => {
    const resetAt = at('2026-11-30T05:45:00Z');
    expect(computeUsageLimitWait({ resetAt, now, marginMs: 60_000, fallbackMs: 60 * MIN })).toEqual({
      resumeAt: resetAt + 60_000,
      waitMs: resetAt + 60_000 - now,
      source: 'stated',
    });
    expect(computeUsageLimitWait({ resetAt, now, ...defaults }).resumeAt).toBe(resetAt + 60_000);
  });

  it('falls back to 60 minutes (configurable) when no time was stated', () => {
    expect(computeUsageLimitWait({ resetAt: null, now, ...defaults })).toEqual({
      resumeAt: now + 60 * MIN,
      waitMs: 60 * MIN,
      source: 'fallback',
    });
    expect(computeUsageLimitWait({ resetAt: undefined, now, ...defaults, fallbackMs: 15 * MIN }).resumeAt).toBe(now + 15 * MIN);
  });

  it('never waits into the past and ignores absurd reset times', () => {
    const past = computeUsageLimitWait({ resetAt: now - 10 * MIN, now, ...defaults, marginMs: 60_000 });
    expect(past).toMatchObject({ resumeAt: now + 60_000, source: 'stated' });
    const absurd = computeUsageLimitWait({ resetAt: now + 9 * 24 * 60 * MIN, now, ...defaults });
    expect(absurd.source).toBe('fallback');
    expect(computeUsageLimitWait({ resetAt: Number.NaN, now, ...defaults }).source).toBe('fallback');
  });
});
