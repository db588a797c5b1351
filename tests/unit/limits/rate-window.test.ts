import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  addTokens,
  checkRateLimit,
  countCall,
  formatClockTime,
  formatNextReset,
  hourKey,
  hourKeyAtOffset,
  initialRateWindow,
  nextResetTime,
  rollWindow,
  rollWindowByRealTime,
  type RateWindowState,
} from '../../../lib/limits/rate-window.js';
import { formatCountdown } from '../../../lib/limits/countdown.js';
import { useTimeZone } from '../../helpers/time-zone.js';

const at = (iso: string) => Date.parse(iso);
const halted = new URL('../../fixtures/bash-state/halted/', import.meta.url);
// Buckets are LOCAL clock hours (Bash `date +%Y%m%d%H`): pin the zone per test.
useTimeZone('UTC', 'test');

describe('hour buckets', () => {
  it('writes the Bash .last_reset form for the hour the Bash run was in', () => {
    const bashLastReset = readFileSync(new URL('.last_reset', halted), 'utf8').trim();
    expect(hourKey(at('2026-11-30T04:48:19Z'))).toBe(bashLastReset);
  });

  it('uses local time, including half-hour zones', () => {
    process.env.TZ = 'Asia/Kolkata';
    expect(hourKey(at('2026-11-30T04:48:19Z'))).toBe('2026113010');
    expect(nextResetTime(at('2026-11-30T04:48:19Z'))).toBe(at('2026-11-30T05:30:00Z'));
    expect(formatNextReset(at('2026-11-30T04:48:19Z'))).toBe('11:00:00');
  });

  it('finds the next local hour across a DST change', () => {
    process.env.TZ = 'America/New_York';
    // 01:30 EST on the spring-forward day; the next local hour is 03:00 EDT.
    expect(nextResetTime(at('2026-03-08T06:30:00Z'))).toBe(at('2026-03-08T07:00:00Z'));
    expect(formatClockTime(at('2026-03-08T07:00:00Z'))).toBe('03:00:00');
  });

  it('rolls to zero in a new hour and keeps counts within the hour (so a restart keeps them)', () => {
    const state: RateWindowState = { calls: 3, tokens: 420, lastReset: '2026113004' };
    expect(rollWindow(state, at('2026-11-30T04:59:59Z'))).toBe(state);
    expect(rollWindow(state, at('2026-11-30T05:00:00Z'))).toEqual({ calls: 0, tokens: 0, lastReset: '2026113005' });
  });

  it('reports the real reset time for status.json next_reset', () => {
    expect(formatNextReset(at('2026-11-30T04:48:19Z'))).toBe('05:00:00');
    expect(nextResetTime(at('2026-11-30T23:10:00Z'))).toBe(at('2026-12-01T00:00:00Z'));
  });
});

describe('rollWindowByRealTime (the boot clock decides a new hour, not the wall clock)', () => {
  const state: RateWindowState = { calls: 3, tokens: 420, lastReset: '2026113004' };
  const anchor = { wallMs: at('2026-11-30T04:10:00Z'), bootId: 'b', uptimeMs: 1_000_000 };
  const later = (minutes: number, bootId = 'b') => ({ bootId, uptimeMs: 1_000_000 + minutes * 60_000 });

  it('a wall clock set back a day or forward two hours, 5 real minutes on: the same hour, named as the wall clock names it', () => {
    expect(rollWindowByRealTime(state, at('2026-11-29T04:15:00Z'), anchor, later(5))).toEqual({ ...state, lastReset: '2026112904' });
    expect(rollWindowByRealTime(state, at('2026-11-30T06:15:00Z'), anchor, later(5))).toEqual({ ...state, lastReset: '2026113006' });
    expect(rollWindowByRealTime(state, at('2026-11-30T04:15:00Z'), anchor, later(5))).toBe(state);
  });

  it('real time past the hour opens a new one whatever the wall clock says', () => {
    expect(rollWindowByRealTime(state, at('2026-11-29T04:15:00Z'), anchor, later(50))).toEqual({ calls: 0, tokens: 0, lastReset: '2026112904' });
  });

  it('without a reading of the same boot, the wall clock decides (rollWindow)', () => {
    expect(rollWindowByRealTime(state, at('2026-11-30T05:00:00Z'), anchor, later(5, 'other'))).toEqual({ calls: 0, tokens: 0, lastReset: '2026113005' });
    expect(rollWindowByRealTime(state, at('2026-11-30T04:30:00Z'), undefined, later(5))).toBe(state);
  });
});

describe('hourKeyAtOffset (the hour a window saved in another zone was named in)', () => {
  it('names the hour of the zone the offset describes, whatever the local zone', () => {
    const t = Date.parse('2026-11-30T03:10:00Z');
    expect(hourKeyAtOffset(t, 0)).toBe('2026113003');
    expect(hourKeyAtOffset(t, -540)).toBe('2026113012'); // Tokyo
    expect(hourKeyAtOffset(t, 300)).toBe('2026112922'); // New York, the day before
    expect(hourKeyAtOffset(t, -330)).toBe('2026113008'); // Kolkata: 08:40
    expect(hourKeyAtOffset(t, new Date(t).getTimezoneOffset())).toBe(hourKey(t));
  });
});

describe('checkRateLimit', () => {
  const limits = { maxCalls: 100, maxTokens: 0 };

  it('allows calls under the limit and counts them before the call', () => {
    let s = initialRateWindow(at('2026-11-30T04:00:00Z'));
    for (let i = 0; i < 100; i++) {
      expect(checkRateLimit(s, limits, at('2026-11-30T04:10:00Z'))).toEqual({ ok: true });
      s = countCall(s);
    }
    expect(s.calls).toBe(100);
  });

  it('at the call limit: no call, a countdown to the top of the hour, the first call after the reset', () => {
    const now = at('2026-11-30T04:48:19Z');
    const s: RateWindowState = { calls: 100, tokens: 0, lastReset: hourKey(now) };
    const check = checkRateLimit(s, limits, now);
    expect(check).toEqual({ ok: false, reason: 'calls', resetAt: at('2026-11-30T05:00:00Z') });
    if (check.ok) throw new Error('unreachable');
    expect(formatCountdown(check.resetAt - now)).toBe('00:11:41');
    const after = rollWindow(s, check.resetAt);
    expect(checkRateLimit(after, limits, check.resetAt)).toEqual({ ok: true });
  });

  it('limits tokens only when MAX_TOKENS_PER_HOUR > 0', () => {
    const now = at('2026-11-30T04:00:00Z');
    const s = addTokens({ calls: 1, tokens: 0, lastReset: hourKey(now) }, 5000);
    expect(checkRateLimit(s, { maxCalls: 100, maxTokens: 0 }, now)).toEqual({ ok: true });
    expect(checkRateLimit(s, { maxCalls: 100, maxTokens: 5000 }, now)).toMatchObject({ ok: false, reason: 'tokens' });
    expect(checkRateLimit(s, { maxCalls: 100, maxTokens: 5001 }, now)).toEqual({ ok: true });
  });

  it('ignores junk token counts', () => {
    const s = initialRateWindow(at('2026-11-30T04:00:00Z'));
    expect(addTokens(s, Number.NaN).tokens).toBe(0);
    expect(addTokens(s, -5).tokens).toBe(0);
  });
});
