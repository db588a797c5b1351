// Spend control: tokens and cost per call, summed per run and per clock hour, and the budgets
// that stop a run (--max-cost, MAX_TOKENS_PER_HOUR, --max-loops, maximum run time; exit 3).
// A call counts when it starts (startCall, persisted before the agent is spawned), so a call
// cut off by a kill still counts, with its cost unknown. The CLI's total_cost_usd is cumulative
// across --resume (claude-cli contract rule 11), so a call's cost is the per-turn
// model_usage_since_last_result cost when the CLI gives it, else the difference from the last
// total seen for the resumed session when the total grew, else the reported total. A call of an
// agent that reports its cost but did not (no result line: the CLI was killed or crashed) is
// charged what it could have cost: the per-call cap it was given (`--max-budget-usd`), else the
// highest cost of one call seen in the run (a call ralph cut off itself: the highest). Unknown-cost calls
// in a row that ralph did not cut off itself are counted: UNKNOWN_COST_STREAK_LIMIT halts.

import { hourKey } from './rate-window.js';

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

export interface SpendState {
  run: {
    tokens: TokenUsage;
    /** Known cost of the run's calls. */
    costUsd: number;
    /** Agent calls started in this run (cut-off ones included). */
    loops: number;
    /** Calls whose cost is not known: cut off (ralph killed mid-call) or no cost reported. */
    unknownCostLoops: number;
    /** A call started and its outcome is not recorded yet. */
    inFlight: boolean;
    /** Of costUsd, what was charged for calls of unknown cost (what they could have cost). */
    unknownChargedUsd?: number;
    /** Calls in a row that reported no cost although their agent reports it, ralph not having cut them off. */
    unknownCostStreak?: number;
    /** The highest known cost of one call in the run: what a call of unknown cost is charged without a cap. */
    maxCallCostUsd?: number;
    /** The per-call cap (`--max-budget-usd`) the call in flight was given. */
    inFlightCapUsd?: number;
  };
  hour: { key: string; tokens: number; costUsd: number };
  /** Last cumulative total_cost_usd seen per session id. */
  lastCumulativeBySession: Record<string, number>;
}

export interface LoopSpendInput {
  sessionId: string | null;
  /** This run was started with --resume. */
  resumed: boolean;
  /** The session id passed to --resume when it differs from the result's (old CLIs minted new ids). */
  resumedSessionId?: string | null;
  usage: Partial<TokenUsage> | null;
  totalCostUsd: number | null;
  /** Sum of model_usage_since_last_result[*].costUSD (stream-json): this call's own cost. */
  sinceLastResultCostUsd?: number | null;
  /** The agent reports its cost (so a call without one is of unknown cost, and charged); default true. */
  reportsCost?: boolean;
  /** ralph itself cut the call off (a signal, the job's time budget): charged, but not counted in the streak. */
  cutOffByRalph?: boolean;
}

/** Calls of unknown cost in a row that halt the run. */
export const UNKNOWN_COST_STREAK_LIMIT = 3;

export interface BudgetOptions {
  /** --max-cost, USD for the whole run; ≤ 0 or null: no budget. */
  maxCostUsd?: number | null;
  /** MAX_TOKENS_PER_HOUR (input + output, as Bash counts); ≤ 0 or null: none. */
  maxTokensPerHour?: number | null;
  /** --max-loops; ≤ 0 or null: none. */
  maxLoops?: number | null;
  /** Maximum run time in minutes; ≤ 0 or null: none. */
  maxRunMinutes?: number | null;
  startedAt: number;
  loopsDone: number;
}

export type BudgetName = 'max_cost' | 'max_tokens_per_hour' | 'max_loops' | 'max_run_time';

export interface BudgetStop {
  budget: BudgetName;
  /** Names the budget and the numbers, for the console and status. */
  reason: string;
  /** status.json exit_reason. */
  exitReason: string;
  /** A budget of the whole run (loops, cost, run time): the run is finished. */
  endsRun: boolean;
}

// Sums of floats such as 0.1 + 0.2 land a hair under the budget; that is still "reached".
const EPSILON = 1e-9;

export function initialSpendState(now: number): SpendState {
  return {
    run: { tokens: zeroTokens(), costUsd: 0, loops: 0, unknownCostLoops: 0, inFlight: false },
    hour: { key: hourKey(now), tokens: 0, costUsd: 0 },
    lastCumulativeBySession: {},
  };
}

/**
 * The cost of one call from the CLI's cumulative total: the total minus the previous call's
 * only when the call resumed that session and the total grew; otherwise the reported total
 * (a total that did not grow means the session's total restarted). Never negative.
 */
export function costDelta(previousCumulative: number | null, currentTotal: number, resumed: boolean): number {
  const total = Number.isFinite(currentTotal) && currentTotal > 0 ? currentTotal : 0;
  if (resumed && previousCumulative !== null && total > previousCumulative) return total - previousCumulative;
  return total;
}

/** A call is about to start: it counts from now on, whatever happens to it. `capUsd`: the per-call cap it is given. */
export function startCall(state: SpendState, capUsd?: number): SpendState {
  const run = { ...state.run, loops: state.run.loops + 1, inFlight: true };
  if (capUsd === undefined) delete run.inFlightCapUsd;
  else run.inFlightCapUsd = capUsd;
  return { ...state, run };
}

/**
 * What a call of unknown cost is charged: the cap it was given, else the highest cost of one call
 * seen. A call ralph cut off itself (Ctrl-C, its own death, a timeout, the job's time budget) is
 * charged the highest cost seen only: the cap is what is left of the whole budget, and a Ctrl-C
 * must not spend it.
 */
export function unknownCallCharge(state: SpendState, cutOffByRalph = false): { usd: number; basis: 'cap' | 'highest' | 'none' } {
  const cap = state.run.inFlightCapUsd;
  if (!cutOffByRalph && cap !== undefined && Number.isFinite(cap) && cap > 0) return { usd: cap, basis: 'cap' };
  const highest = state.run.maxCallCostUsd ?? 0;
  return highest > 0 ? { usd: highest, basis: 'highest' } : { usd: 0, basis: 'none' };
}

/** The call startCall counted never happened (the agent could not be spawned): take it back. */
export function cancelCall(state: SpendState): SpendState {
  if (!state.run.inFlight) return state;
  return { ...state, run: { ...state.run, loops: Math.max(0, state.run.loops - 1), inFlight: false } };
}

/** A call left in flight by a ralph that died: it stays counted, its cost unknown and charged (not in the streak: ralph cut it off). */
export function settleCutOffCall(state: SpendState): SpendState {
  if (!state.run.inFlight) return state;
  const charge = unknownCallCharge(state, true).usd;
  const run = {
    ...state.run,
    inFlight: false,
    unknownCostLoops: state.run.unknownCostLoops + 1,
    costUsd: state.run.costUsd + charge,
    unknownChargedUsd: (state.run.unknownChargedUsd ?? 0) + charge,
  };
  delete run.inFlightCapUsd;
  return { ...state, run };
}

/** The outcome of the call startCall counted: its tokens and cost. */
export function recordLoopSpend(state: SpendState, input: LoopSpendInput, now: number): SpendState {
  const resumedId = input.resumedSessionId ?? (input.resumed ? input.sessionId : null);
  const previous = resumedId === null ? null : (state.lastCumulativeBySession[resumedId] ?? null);
  const total = input.totalCostUsd ?? 0;
  const since = input.sinceLastResultCostUsd;
  const known = input.totalCostUsd !== null || (since !== null && since !== undefined);
  const reported = since !== null && since !== undefined && Number.isFinite(since) && since >= 0 ? since : costDelta(previous, total, resumedId !== null);
  // A call of an agent that reports its cost, without one: charged what it could have cost.
  const unknown = !known && input.reportsCost !== false;
  const cost = unknown ? unknownCallCharge(state, input.cutOffByRalph).usd : reported;
  const usage = normaliseUsage(input.usage);
  const hourTokens = usage.input + usage.output;

  const lastCumulativeBySession = { ...state.lastCumulativeBySession };
  // An error result reports 0 even on a resumed session: keep the last real total.
  if (input.sessionId && total > 0) lastCumulativeBySession[input.sessionId] = total;

  const key = hourKey(now);
  const hour = state.hour.key === key ? state.hour : { key, tokens: 0, costUsd: 0 };
  const streak = state.run.unknownCostStreak ?? 0;
  return {
    run: {
      tokens: addUsage(state.run.tokens, usage),
      costUsd: state.run.costUsd + cost,
      loops: state.run.loops,
      unknownCostLoops: state.run.unknownCostLoops + (known ? 0 : 1),
      inFlight: false,
      unknownChargedUsd: (state.run.unknownChargedUsd ?? 0) + (unknown ? cost : 0),
      unknownCostStreak: unknown ? (input.cutOffByRalph ? streak : streak + 1) : known ? 0 : streak,
      maxCallCostUsd: known ? Math.max(state.run.maxCallCostUsd ?? 0, reported) : (state.run.maxCallCostUsd ?? 0),
    },
    hour: { key, tokens: hour.tokens + hourTokens, costUsd: hour.costUsd + cost },
    lastCumulativeBySession,
  };
}

/** Each count the larger of the two: neither source alone can make the run's spend go back. */
export function mergeSpend(a: SpendState, b: SpendState): SpendState {
  const max = Math.max;
  // Hour keys (YYYYMMDDHH) sort as text: the later hour is the current one.
  const hour =
    a.hour.key === b.hour.key
      ? { key: a.hour.key, tokens: max(a.hour.tokens, b.hour.tokens), costUsd: max(a.hour.costUsd, b.hour.costUsd) }
      : a.hour.key > b.hour.key
        ? a.hour
        : b.hour;
  return {
    run: {
      tokens: {
        input: max(a.run.tokens.input, b.run.tokens.input),
        output: max(a.run.tokens.output, b.run.tokens.output),
        cacheRead: max(a.run.tokens.cacheRead, b.run.tokens.cacheRead),
        cacheCreation: max(a.run.tokens.cacheCreation, b.run.tokens.cacheCreation),
      },
      costUsd: max(a.run.costUsd, b.run.costUsd),
      loops: max(a.run.loops, b.run.loops),
      unknownCostLoops: max(a.run.unknownCostLoops, b.run.unknownCostLoops),
      inFlight: a.run.inFlight || b.run.inFlight,
      unknownChargedUsd: max(a.run.unknownChargedUsd ?? 0, b.run.unknownChargedUsd ?? 0),
      unknownCostStreak: max(a.run.unknownCostStreak ?? 0, b.run.unknownCostStreak ?? 0),
      maxCallCostUsd: max(a.run.maxCallCostUsd ?? 0, b.run.maxCallCostUsd ?? 0),
      ...(a.run.inFlightCapUsd !== undefined || b.run.inFlightCapUsd !== undefined
        ? { inFlightCapUsd: max(a.run.inFlightCapUsd ?? 0, b.run.inFlightCapUsd ?? 0) }
        : {}),
    },
    hour,
    lastCumulativeBySession: { ...b.lastCumulativeBySession, ...a.lastCumulativeBySession },
  };
}

/** Checked before each loop: the first budget already used up, or null to go on. */
export function checkBudgets(state: SpendState, options: BudgetOptions, now: number): BudgetStop | null {
  const { maxLoops, maxRunMinutes, maxCostUsd, maxTokensPerHour } = options;
  if (isSet(maxLoops) && options.loopsDone >= maxLoops) {
    return {
      budget: 'max_loops',
      reason: `Loop budget reached: ${options.loopsDone} of --max-loops ${maxLoops} loops done`,
      endsRun: true,
      exitReason: 'max_loops_reached',
    };
  }
  if (isSet(maxRunMinutes) && now - options.startedAt >= maxRunMinutes * 60_000) {
    const minutes = Math.floor((now - options.startedAt) / 60_000);
    return {
      budget: 'max_run_time',
      reason: `Run-time budget reached: running for ${minutes} min, maximum run time is ${maxRunMinutes} min`,
      exitReason: 'max_run_time_reached',
      endsRun: true,
    };
  }
  if (isSet(maxCostUsd) && state.run.costUsd + EPSILON >= maxCostUsd) {
    return {
      budget: 'max_cost',
      reason: `Cost budget reached: spent ${formatRunCost(state)} of --max-cost $${formatUsd(maxCostUsd)}`,
      exitReason: 'cost_budget_exhausted',
      endsRun: true,
    };
  }
  const hourTokens = state.hour.key === hourKey(now) ? state.hour.tokens : 0;
  if (isSet(maxTokensPerHour) && hourTokens >= maxTokensPerHour) {
    return {
      budget: 'max_tokens_per_hour',
      reason: `Token budget reached: ${hourTokens} tokens this hour of MAX_TOKENS_PER_HOUR=${maxTokensPerHour}`,
      exitReason: 'token_budget_exhausted',
      // An hourly budget: the same run goes on in a later hour.
      endsRun: false,
    };
  }
  return null;
}

/**
 * What is left of --max-cost for the next call (rounded up to a millionth, so never 0), or
 * undefined with no cost budget or none left: the cap a Claude call gets (`--max-budget-usd`),
 * so one runaway call cannot overshoot the run's budget.
 */
export function remainingCostBudget(state: SpendState, maxCostUsd: number | null | undefined): number | undefined {
  if (!isSet(maxCostUsd)) return undefined;
  const left = maxCostUsd - state.run.costUsd;
  return left > EPSILON ? Math.ceil(Number((left * 1e6).toFixed(3))) / 1e6 : undefined;
}

/** The run's cost as counted: "$2.00", or "$2.00 + 1 call of unknown cost", or "$2.50 (with $0.50 charged for 1 call of unknown cost)". */
export function formatRunCost(state: SpendState): string {
  const known = `$${formatUsd(state.run.costUsd)}`;
  const unknown = state.run.unknownCostLoops;
  if (unknown === 0) return known;
  const calls = `${unknown} call${unknown === 1 ? '' : 's'} of unknown cost`;
  const charged = state.run.unknownChargedUsd ?? 0;
  return charged > 0 ? `${known} (with $${formatUsd(charged)} charged for ${calls})` : `${known} + ${calls}`;
}

/** Dollars with cents, more digits only when needed: 0.06, 0.0045, 12.5 → "12.50". */
export function formatUsd(usd: number): string {
  return usd.toFixed(4).replace(/0{1,2}$/, '');
}

function isSet(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function zeroTokens(): TokenUsage {
  return { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
}

function normaliseUsage(usage: Partial<TokenUsage> | null): TokenUsage {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  return {
    input: n(usage?.input),
    output: n(usage?.output),
    cacheRead: n(usage?.cacheRead),
    cacheCreation: n(usage?.cacheCreation),
  };
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheCreation: a.cacheCreation + b.cacheCreation,
  };
}
