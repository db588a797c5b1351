// Spend control: tokens and cost per call, summed per run and per clock hour, and the budgets
// that stop a run (--max-cost, MAX_TOKENS_PER_HOUR, --max-loops, maximum run time; exit 3).
// A call counts when it starts (startCall, persisted before the agent is spawned), so a call
// cut off by a kill still counts, with its cost unknown. The CLI's total_cost_usd is cumulative
// across --resume (claude-cli contract rule 11), so a call's cost is the per-turn
// model_usage_since_last_result cost when the CLI gives it, else the difference from the last
// total seen for the resumed session when the total grew, else the reported total.

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
}

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

/** A call is about to start: it counts from now on, whatever happens to it. */
export function startCall(state: SpendState): SpendState {
  return { ...state, run: { ...state.run, loops: state.run.loops + 1, inFlight: true } };
}

/** The call startCall counted never happened (the agent could not be spawned): take it back. */
export function cancelCall(state: SpendState): SpendState {
  if (!state.run.inFlight) return state;
  return { ...state, run: { ...state.run, loops: Math.max(0, state.run.loops - 1), inFlight: false } };
}

/** A call left in flight by a ralph that died: it stays counted, its cost unknown. */
export function settleCutOffCall(state: SpendState): SpendState {
  if (!state.run.inFlight) return state;
  return { ...state, run: { ...state.run, inFlight: false, unknownCostLoops: state.run.unknownCostLoops + 1 } };
}

/** The outcome of the call startCall counted: its tokens and cost. */
export function recordLoopSpend(state: SpendState, input: LoopSpendInput, now: number): SpendState {
  const resumedId = input.resumedSessionId ?? (input.resumed ? input.sessionId : null);
  const previous = resumedId === null ? null : (state.lastCumulativeBySession[resumedId] ?? null);
  const total = input.totalCostUsd ?? 0;
  const since = input.sinceLastResultCostUsd;
  const known = input.totalCostUsd !== null || (since !== null && since !== undefined);
  const cost = since !== null && since !== undefined && Number.isFinite(since) && since >= 0 ? since : costDelta(previous, total, resumedId !== null);
  const usage = normaliseUsage(input.usage);
  const hourTokens = usage.input + usage.output;

  const lastCumulativeBySession = { ...state.lastCumulativeBySession };
  // An error result reports 0 even on a resumed session: keep the last real total.
  if (input.sessionId && total > 0) lastCumulativeBySession[input.sessionId] = total;

  const key = hourKey(now);
  const hour = state.hour.key === key ? state.hour : { key, tokens: 0, costUsd: 0 };
  return {
    run: {
      tokens: addUsage(state.run.tokens, usage),
      costUsd: state.run.costUsd + cost,
      loops: state.run.loops,
      unknownCostLoops: state.run.unknownCostLoops + (known ? 0 : 1),
      inFlight: false,
    },
    hour: { key, tokens: hour.tokens + hourTokens, costUsd: hour.costUsd + cost },
    lastCumulativeBySession,
  };
}

/** Each count the larger of the two: neither source alone can make the run's spend go back. */
export function mergeSpend(a: SpendState, b: SpendState): SpendState {
  const max = Math.max;
  // Hour keys (YYYYMMDDHH) sort as text: the later hour is the current one.
  const hour = a.hour.key === b.hour.key
    ? { key: a.hour.key, tokens: max(a.hour.tokens, b.hour.tokens), costUsd: max(a.hour.costUsd, b.hour.costUsd) }
    : a.hour.key > b.hour.key ? a.hour : b.hour;
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

/** The run's cost as known: "$2.00", or "$2.00 + 1 call of unknown cost". */
export function formatRunCost(state: SpendState): string {
  const known = `$${formatUsd(state.run.costUsd)}`;
  const unknown = state.run.unknownCostLoops;
  return unknown === 0 ? known : `${known} + ${unknown} call${unknown === 1 ? '' : 's'} of unknown cost`;
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
