import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  checkBudgets,
  costDelta,
  formatRunCost,
  formatUsd,
  initialSpendState,
  mergeSpend,
  recordLoopSpend,
  remainingCostBudget,
  settleCutOffCall,
  cancelCall,
  startCall,
  type LoopSpendInput,
  type SpendState,
} from '../../../lib/limits/spend.js';
import { useTimeZone } from '../../helpers/time-zone.js';

const recordings = new URL('../../fixtures/claude-cli-2.1.332/', import.meta.url);
const resultOf = (label: string) => JSON.parse(readFileSync(new URL(`${label}.stdout`, recordings), 'utf8').trim()) as Record<string, any>;
const T0 = Date.parse('2026-11-30T03:10:00Z');
const MIN = 60_000;
useTimeZone('UTC');

const usageOf = (r: Record<string, any>) => ({
  input: r.usage.input_tokens,
  output: r.usage.output_tokens,
  cacheRead: r.usage.cache_read_input_tokens,
  cacheCreation: r.usage.cache_creation_input_tokens,
});

describe('costDelta', () => {
  it.each([
    [null, 0.009, false, 0.009],
    [0.009, 0.018, true, 0.009],
    [null, 0.018, true, 0.018],
    [0.009, 0.018, false, 0.018],
    [0.027, 0.004, true, 0.004],
    [0.027, 0, true, 0],
    // A resumed session whose total did not grow: the reported value, not 0.
    [0.018, 0.018, true, 0.018],
    [null, Number.NaN, false, 0],
  ])('previous %s, total %s, resumed %s → %s', (prev, total, resumed, expected) => {
    expect(costDelta(prev, total, resumed)).toBeCloseTo(expected, 12);
  });
});

describe('recordLoopSpend on the recorded resume chain (total_cost_usd is cumulative)', () => {
  it('charges each run once: s1 fresh, s2 and s3 resumed, s4 a fork with a new id', () => {
    const [s1, s2, s3, s4] = ['s1', 's2', 's3', 's4'].map(resultOf) as Record<string, any>[];
    // Each call is counted when it starts; recordLoopSpend adds its outcome.
    const call = (s: SpendState, input: LoopSpendInput, now: number) => recordLoopSpend(startCall(s), input, now);
    let state = initialSpendState(T0);
    state = call(state, { sessionId: s1!.session_id, resumed: false, usage: usageOf(s1!), totalCostUsd: s1!.total_cost_usd }, T0);
    state = call(state, { sessionId: s2!.session_id, resumed: true, usage: usageOf(s2!), totalCostUsd: s2!.total_cost_usd }, T0 + MIN);
    state = call(state, { sessionId: s3!.session_id, resumed: true, usage: usageOf(s3!), totalCostUsd: s3!.total_cost_usd }, T0 + 2 * MIN);
    state = call(
      state,
      { sessionId: s4!.session_id, resumed: true, resumedSessionId: s1!.session_id, usage: usageOf(s4!), totalCostUsd: s4!.total_cost_usd },
      T0 + 3 * MIN,
    );
    expect(state.run.costUsd).toBeCloseTo(0.036, 12);
    expect(state.run).toMatchObject({ loops: 4, unknownCostLoops: 0, inFlight: false });
    expect(state.run.tokens).toEqual({ input: 4800, output: 240, cacheRead: 60000, cacheCreation: 0 });
    expect(state.hour).toMatchObject({ key: '2026113003', tokens: 4 * 1260 });
    expect(state.hour.costUsd).toBeCloseTo(0.036, 12);
  });

  it('keeps the last real total when an error result reports 0', () => {
    let state = initialSpendState(T0);
    const loop = (total: number) => ({ sessionId: 'S', resumed: true, usage: null, totalCostUsd: total });
    state = recordLoopSpend(state, loop(0.02), T0);
    state = recordLoopSpend(state, loop(0), T0);
    state = recordLoopSpend(state, loop(0.05), T0);
    expect(state.run.costUsd).toBeCloseTo(0.05, 12);
    expect(state.lastCumulativeBySession).toEqual({ S: 0.05 });
  });

  it('starts a new hour bucket at the top of the hour', () => {
    let state = initialSpendState(T0);
    const loop = { sessionId: null, resumed: false, usage: { input: 100, output: 10 }, totalCostUsd: 0.01 };
    state = recordLoopSpend(state, loop, T0);
    state = recordLoopSpend(state, loop, Date.parse('2026-11-30T04:00:00Z'));
    expect(state.hour).toEqual({ key: '2026113004', tokens: 110, costUsd: 0.01 });
    expect(state.run.costUsd).toBeCloseTo(0.02, 12);
  });
});

describe('the cost of one call', () => {
  const after = (previous: number | null, input: Omit<LoopSpendInput, 'usage'>) => {
    let state = initialSpendState(T0);
    if (previous !== null) state = { ...state, lastCumulativeBySession: { S: previous } };
    return recordLoopSpend(startCall(state), { usage: null, ...input }, T0).run;
  };

  it('a resumed session whose total grew: the difference', () => {
    expect(after(2, { sessionId: 'S', resumed: true, totalCostUsd: 3 }).costUsd).toBeCloseTo(1, 12);
  });

  it('a resumed session whose total did not grow: the reported value', () => {
    expect(after(3, { sessionId: 'S', resumed: true, totalCostUsd: 3 }).costUsd).toBeCloseTo(3, 12);
    expect(after(3, { sessionId: 'S', resumed: true, totalCostUsd: 1 }).costUsd).toBeCloseTo(1, 12);
  });

  it('a fresh session: the reported value, even when its id has a known total', () => {
    expect(after(2, { sessionId: 'S', resumed: false, totalCostUsd: 3 }).costUsd).toBeCloseTo(3, 12);
  });

  it("model_usage_since_last_result, when given, is the call's cost whatever the total says", () => {
    // The recorded two-turn stream: cumulative total 0.018, this turn's own cost 0.009.
    expect(after(null, { sessionId: 'S', resumed: true, totalCostUsd: 0.018, sinceLastResultCostUsd: 0.009 }).costUsd).toBeCloseTo(0.009, 12);
    expect(after(0.009, { sessionId: 'S', resumed: false, totalCostUsd: 0.018, sinceLastResultCostUsd: 0.009 }).costUsd).toBeCloseTo(0.009, 12);
  });

  it('no cost reported at all: the call is of unknown cost', () => {
    expect(after(null, { sessionId: null, resumed: false, totalCostUsd: null })).toMatchObject({ costUsd: 0, unknownCostLoops: 1, loops: 1 });
    expect(after(null, { sessionId: null, resumed: false, totalCostUsd: 0 })).toMatchObject({ costUsd: 0, unknownCostLoops: 0 });
  });
});

describe('calls counted per run', () => {
  it('a call counts when it starts; one cut off stays counted, its cost unknown', () => {
    let state = recordLoopSpend(startCall(initialSpendState(T0)), { sessionId: 'S', resumed: false, usage: null, totalCostUsd: 1 }, T0);
    state = startCall(state);
    expect(state.run).toMatchObject({ loops: 2, inFlight: true, unknownCostLoops: 0 });
    // ralph was killed mid-call; the next ralph settles it, charged the highest cost of one call seen.
    state = settleCutOffCall(state);
    expect(state.run).toMatchObject({ loops: 2, inFlight: false, unknownCostLoops: 1, costUsd: 2, unknownChargedUsd: 1 });
    expect(settleCutOffCall(state)).toBe(state);
    expect(formatRunCost(state)).toBe('$2.00 (with $1.00 charged for 1 call of unknown cost)');
    expect(formatRunCost({ ...state, run: { ...state.run, unknownCostLoops: 2, unknownChargedUsd: 0 } })).toBe('$2.00 + 2 calls of unknown cost');
    expect(formatRunCost(initialSpendState(T0))).toBe('$0.00');
  });

  it('a call that reported no cost is charged its cap, else the highest cost seen; three in a row are counted', () => {
    const none = { sessionId: null, resumed: false, usage: null, totalCostUsd: null };
    let state = recordLoopSpend(startCall(initialSpendState(T0)), { ...none, totalCostUsd: 0.5 }, T0);
    state = recordLoopSpend(startCall(state, 2), none, T0);
    expect(state.run).toMatchObject({ costUsd: 2.5, unknownChargedUsd: 2, unknownCostLoops: 1, unknownCostStreak: 1 });
    state = recordLoopSpend(startCall(state), none, T0);
    expect(state.run).toMatchObject({ costUsd: 3, unknownChargedUsd: 2.5, unknownCostStreak: 2 });
    // ralph cut the call off itself: charged the highest cost seen, not the cap, and not in the streak.
    state = recordLoopSpend(startCall(state, 5), { ...none, cutOffByRalph: true }, T0);
    expect(state.run).toMatchObject({ costUsd: 3.5, unknownCostStreak: 2 });
    state = recordLoopSpend(startCall(state), none, T0);
    expect(state.run.unknownCostStreak).toBe(3);
    // A call with a cost ends the streak; an agent that never reports cost is charged nothing.
    state = recordLoopSpend(startCall(state), { ...none, totalCostUsd: 0.1 }, T0);
    expect(state.run.unknownCostStreak).toBe(0);
    const silent = recordLoopSpend(startCall(state), { ...none, reportsCost: false }, T0);
    expect(silent.run).toMatchObject({ costUsd: state.run.costUsd, unknownCostStreak: 0 });
  });

  it('a call whose agent could not be spawned is taken back, once', () => {
    const state = startCall(startCall(initialSpendState(T0)));
    const cancelled = cancelCall(state);
    expect(cancelled.run).toMatchObject({ loops: 1, inFlight: false, unknownCostLoops: 0 });
    expect(cancelCall(cancelled)).toBe(cancelled);
  });

  it('says the unknown cost when the cost budget stops the run', () => {
    const state = { ...initialSpendState(T0), run: { ...initialSpendState(T0).run, loops: 4, costUsd: 3, unknownCostLoops: 1 } };
    expect(checkBudgets(state, { maxCostUsd: 3, startedAt: T0, loopsDone: 4 }, T0)?.reason).toBe(
      'Cost budget reached: spent $3.00 + 1 call of unknown cost of --max-cost $3.00',
    );
  });

  it('merging two accounts of a run never counts less than either', () => {
    const a = { ...initialSpendState(T0), run: { ...initialSpendState(T0).run, loops: 3, costUsd: 1 }, lastCumulativeBySession: { S: 1 } };
    const b = { ...initialSpendState(T0), run: { ...initialSpendState(T0).run, loops: 2, costUsd: 2, unknownCostLoops: 1 } };
    expect(mergeSpend(a, b).run).toMatchObject({ loops: 3, costUsd: 2, unknownCostLoops: 1 });
    expect(mergeSpend(a, b).lastCumulativeBySession).toEqual({ S: 1 });
    const later = { ...b, hour: { key: '2026113004', tokens: 5, costUsd: 0 } };
    expect(mergeSpend(a, later).hour.key).toBe('2026113004');
  });
});

describe('remainingCostBudget (the cap of the next Claude call)', () => {
  const spent = (costUsd: number): SpendState => {
    const state = initialSpendState(T0);
    return { ...state, run: { ...state.run, costUsd } };
  };
  it('is what is left of --max-cost, rounded up to a millionth so it is never 0', () => {
    expect(remainingCostBudget(spent(0), 3)).toBe(3);
    expect(remainingCostBudget(spent(1.1), 3)).toBe(1.9);
    expect(remainingCostBudget(spent(0.026999999999999996), 0.5)).toBe(0.473);
    expect(remainingCostBudget(spent(2.9999999), 3)).toBe(0.000001);
  });
  it('is undefined with no cost budget or none left', () => {
    expect(remainingCostBudget(spent(1), 0)).toBeUndefined();
    expect(remainingCostBudget(spent(1), null)).toBeUndefined();
    expect(remainingCostBudget(spent(3), 3)).toBeUndefined();
    expect(remainingCostBudget(spent(4), 3)).toBeUndefined();
  });
});

describe('checkBudgets (before each loop)', () => {
  const base = { startedAt: T0, loopsDone: 0 };

  it('--max-cost 0.05 with 0.02 per loop stops after the third loop', () => {
    let state: SpendState = initialSpendState(T0);
    let loops = 0;
    let stop = null;
    while (loops < 10) {
      stop = checkBudgets(state, { ...base, maxCostUsd: 0.05, loopsDone: loops }, T0);
      if (stop) break;
      loops++;
      state = recordLoopSpend(state, { sessionId: 'S', resumed: loops > 1, usage: null, totalCostUsd: 0.02 * loops }, T0);
    }
    expect(loops).toBe(3);
    expect(stop).toEqual({
      budget: 'max_cost',
      reason: 'Cost budget reached: spent $0.06 of --max-cost $0.05',
      exitReason: 'cost_budget_exhausted',
      endsRun: true,
    });
  });

  it('treats a sum a hair under the budget as reached', () => {
    expect(0.7 + 0.1).toBeLessThan(0.8);
    const state = { ...initialSpendState(T0), run: { ...initialSpendState(T0).run, costUsd: 0.7 + 0.1 } };
    expect(checkBudgets(state, { ...base, maxCostUsd: 0.8 }, T0)?.budget).toBe('max_cost');
    const under = { ...state, run: { ...state.run, costUsd: 0.79 } };
    expect(checkBudgets(under, { ...base, maxCostUsd: 0.8 }, T0)).toBeNull();
  });

  it('stops at --max-loops, the maximum run time and MAX_TOKENS_PER_HOUR, naming each', () => {
    const s = recordLoopSpend(initialSpendState(T0), { sessionId: null, resumed: false, usage: { input: 900, output: 100 }, totalCostUsd: 0 }, T0);
    expect(checkBudgets(s, { ...base, maxLoops: 5, loopsDone: 5 }, T0)).toMatchObject({
      budget: 'max_loops',
      exitReason: 'max_loops_reached',
      reason: 'Loop budget reached: 5 of --max-loops 5 loops done',
    });
    expect(checkBudgets(s, { ...base, maxLoops: 5, loopsDone: 4 }, T0)).toBeNull();
    expect(checkBudgets(s, { ...base, maxRunMinutes: 60 }, T0 + 60 * MIN)).toMatchObject({
      budget: 'max_run_time',
      exitReason: 'max_run_time_reached',
      reason: 'Run-time budget reached: running for 60 min, maximum run time is 60 min',
    });
    expect(checkBudgets(s, { ...base, maxRunMinutes: 60 }, T0 + 59 * MIN)).toBeNull();
    expect(checkBudgets(s, { ...base, maxTokensPerHour: 1000 }, T0)).toMatchObject({
      budget: 'max_tokens_per_hour',
      exitReason: 'token_budget_exhausted',
      reason: 'Token budget reached: 1000 tokens this hour of MAX_TOKENS_PER_HOUR=1000',
    });
    // The hour's tokens no longer count in the next hour.
    expect(checkBudgets(s, { ...base, maxTokensPerHour: 1000 }, Date.parse('2026-11-30T04:00:00Z'))).toBeNull();
  });

  it('treats 0 and null as "no budget"', () => {
    const s = { ...initialSpendState(T0), run: { ...initialSpendState(T0).run, costUsd: 99 } };
    expect(checkBudgets(s, { ...base, maxCostUsd: 0, maxLoops: null, maxRunMinutes: 0, maxTokensPerHour: 0, loopsDone: 1000 }, T0 + 1e9)).toBeNull();
  });

  it('formats dollars with cents and keeps sub-cent digits', () => {
    expect(formatUsd(0.06000000000000001)).toBe('0.06');
    expect(formatUsd(0.0045)).toBe('0.0045');
    expect(formatUsd(12.5)).toBe('12.50');
  });
});
