// Spend control: tokens and cost per loop, summed per run and per clock hour, and the budgets
// that stop a run (--max-cost, MAX_TOKENS_PER_HOUR, --max-loops, maximum run time; exit 3).
// The CLI's total_cost_usd is cumulative across --resume (claude-cli contract rule 11), so a
// loop's cost is the difference from the last total seen for that session.

import { hourKey } from './rate-window.js';

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

export interface SpendState {
  run: { tokens: TokenUsage; costUsd: number; loops: number };
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
}

// Sums of floats such as 0.1 + 0.2 land a hair under the budget; that is still "reached".
const EPSILON = 1e-9;

export function initialSpendState(now: number): SpendState {
  return {
    run: { tokens: zeroTokens(), costUsd: 0, loops: 0 },
    hour: { key: hourKey(now), tokens: 0, costUsd: 0 },
    lastCumulativeBySession: {},
  };
}

/**
 * The cost of one run from the CLI's cumulative total. With no previous total for the
 * resumed session the whole total counts; a total below the previous one means the session's
 * total restarted, so the whole total counts too. Never negative.
 */
export function costDelta(previousCumulative: number | null, currentTotal: number, resumed: boolean): number {
  const total = Number.isFinite(currentTotal) && currentTotal > 0 ? currentTotal : 0;
  if (!resumed || previousCumulative === null || total < previousCumulative) return total;
  return total - previousCumulative;
}

export function recordLoopSpend(state: SpendState, input: LoopSpendInput, now: number): SpendState {
  const resumedId = input.resumedSessionId ?? (input.resumed ? input.sessionId : null);
  const previous = resumedId === null ? null : (state.lastCumulativeBySession[resumedId] ?? null);
  const total = input.totalCostUsd ?? 0;
  const cost = costDelta(previous, total, resumedId !== null);
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
      loops: state.run.loops + 1,
    },
    hour: { key, tokens: hour.tokens + hourTokens, costUsd: hour.costUsd + cost },
    lastCumulativeBySession,
  };
}

/** Checked before each loop: the first budget already used up, or null to go on. */
export function checkBudgets(state: SpendState, options: BudgetOptions, now: number): BudgetStop | null {
  const { maxLoops, maxRunMinutes, maxCostUsd, maxTokensPerHour } = options;
  if (isSet(maxLoops) && options.loopsDone >= maxLoops) {
    return {
      budget: 'max_loops',
      reason: `Loop budget reached: ${options.loopsDone} of --max-loops ${maxLoops} loops done`,
      exitReason: 'max_loops_reached',
    };
  }
  if (isSet(maxRunMinutes) && now - options.startedAt >= maxRunMinutes * 60_000) {
    const minutes = Math.floor((now - options.startedAt) / 60_000);
    return {
      budget: 'max_run_time',
      reason: `Run-time budget reached: running for ${minutes} min, maximum run time is ${maxRunMinutes} min`,
      exitReason: 'max_run_time_reached',
    };
  }
  if (isSet(maxCostUsd) && state.run.costUsd + EPSILON >= maxCostUsd) {
    return {
      budget: 'max_cost',
      reason: `Cost budget reached: spent $${formatUsd(state.run.costUsd)} of --max-cost $${formatUsd(maxCostUsd)}`,
      exitReason: 'cost_budget_exhausted',
    };
  }
  const hourTokens = state.hour.key === hourKey(now) ? state.hour.tokens : 0;
  if (isSet(maxTokensPerHour) && hourTokens >= maxTokensPerHour) {
    return {
      budget: 'max_tokens_per_hour',
      reason: `Token budget reached: ${hourTokens} tokens this hour of MAX_TOKENS_PER_HOUR=${maxTokensPerHour}`,
      exitReason: 'token_budget_exhausted',
    };
  }
  return null;
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
