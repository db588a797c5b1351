import { describe, expect, it } from 'vitest';
import { initialBreakerState } from '../../../lib/breaker/circuit-breaker.js';
import { checkBreakerState, checkRateWindow, CLOCK_SKEW_MS, usageWaitProblem } from '../../../lib/breaker/guard-ranges.js';
import { hourKey } from '../../../lib/limits/rate-window.js';
import { longestUsageLimitWaitMs, MAX_STATED_WAIT_MS } from '../../../lib/limits/reset-time.js';

const NOW = new Date(2026, 10, 30, 10, 20).getTime();

describe('checkRateWindow', () => {
  it('keeps a window ralph could have written', () => {
    const window = { calls: 12, tokens: 3400, lastReset: hourKey(NOW) };
    expect(checkRateWindow(window, NOW)).toEqual({ value: window, problems: [] });
    const earlier = { calls: 3, tokens: 0, lastReset: '2026113004' };
    expect(checkRateWindow(earlier, NOW).problems).toEqual([]);
  });

  it('resets a negative or impossible count to 0', () => {
    const { value, problems } = checkRateWindow({ calls: -1_000_000, tokens: 1e15, lastReset: hourKey(NOW) }, NOW);
    expect(value).toMatchObject({ calls: 0, tokens: 0 });
    expect(problems.map((p) => p.field)).toEqual(['calls', 'tokens']);
    expect(problems[0]!.problem).toBe('-1000000 is below 0; reset to 0');
  });

  it('a future window hour becomes the current hour and keeps the count', () => {
    const { value, problems } = checkRateWindow({ calls: 7, tokens: 0, lastReset: '2099010100' }, NOW);
    expect(value).toEqual({ calls: 7, tokens: 0, lastReset: hourKey(NOW) });
    expect(problems.map((p) => p.field)).toEqual(['lastReset']);
  });

  it('a window hour that is not an hour starts a new window, with a warning', () => {
    for (const lastReset of ['20261130xx', '2026113025', 'yesterday?']) {
      const { value, problems } = checkRateWindow({ calls: 7, tokens: 5, lastReset }, NOW);
      expect(value).toEqual({ calls: 0, tokens: 0, lastReset: hourKey(NOW) });
      expect(problems.map((p) => p.field)).toEqual(['lastReset']);
    }
  });

  it('the next hour is believed only within the clock skew', () => {
    const nextHourStart = new Date(2026, 10, 30, 11).getTime();
    expect(checkRateWindow({ calls: 1, tokens: 0, lastReset: hourKey(nextHourStart) }, nextHourStart - CLOCK_SKEW_MS).problems).toEqual([]);
    expect(checkRateWindow({ calls: 1, tokens: 0, lastReset: hourKey(nextHourStart) }, nextHourStart - CLOCK_SKEW_MS - 1).problems).toHaveLength(1);
  });
});

describe('checkBreakerState', () => {
  it('moves a future opened_at / last_change to now and resets negative counters', () => {
    const state = {
      ...initialBreakerState(NOW),
      state: 'OPEN' as const,
      opened_at: '2099-01-01T00:00:00+00:00',
      last_change: '2099-01-01T00:00:00+00:00',
      consecutive_no_progress: -50,
    };
    const { value, problems } = checkBreakerState(state, NOW);
    expect(value.opened_at).toBe(initialBreakerState(NOW).last_change);
    expect(value.last_change).toBe(initialBreakerState(NOW).last_change);
    expect(value.consecutive_no_progress).toBe(0);
    expect(problems.map((p) => p.field)).toEqual(['consecutive_no_progress', 'last_change', 'opened_at']);
  });

  it('keeps a state ralph wrote', () => {
    const state = {
      ...initialBreakerState(NOW - 60_000),
      state: 'OPEN' as const,
      opened_at: initialBreakerState(NOW - 60_000).last_change,
      consecutive_no_progress: 3,
    };
    expect(checkBreakerState(state, NOW)).toEqual({ value: state, problems: [] });
  });
});

describe('usageWaitProblem', () => {
  const max = longestUsageLimitWaitMs({ marginMs: 60_000, fallbackMs: 60 * 60_000 });
  const wait = (ms: number) => ({ resume_at: new Date(ms).toISOString(), resume_at_ms: ms });

  it('accepts the longest wait ralph itself chooses, refuses one beyond it', () => {
    expect(max).toBe(MAX_STATED_WAIT_MS + 60_000);
    expect(usageWaitProblem(wait(NOW + max), NOW, max)).toBeUndefined();
    expect(usageWaitProblem(wait(NOW + max + CLOCK_SKEW_MS + 1), NOW, max)).toMatch(/further away than the longest wait ralph chooses/);
    expect(usageWaitProblem(wait(Date.parse('2099-01-01T00:00:00Z')), NOW, max)).toBeDefined();
  });

  it('checks the text form too: a resume_at in 2099 with a plausible resume_at_ms is refused', () => {
    expect(usageWaitProblem({ resume_at: '2099-01-01T00:00:00Z', resume_at_ms: NOW + 60_000 }, NOW, max)).toBeDefined();
  });

  it('a long configured fallback raises the bound', () => {
    expect(longestUsageLimitWaitMs({ marginMs: 60_000, fallbackMs: 30 * 86_400_000 })).toBe(30 * 86_400_000);
  });
});
