// What several runs in one ralph process share because they spend one account (`ralph
// --parallel`, lib/parallel/): the hourly call window, the spend and clock the budgets count,
// and a usage-limit wait (one account: when one run hits the limit, every run waits). A run
// without one keeps all of this to itself, in its own .ralph/ files, exactly as before.

import type { SpendState } from './spend.js';
import type { HeldRateWindow, HeldRunSpend, UsageWaitFile } from './limits-store.js';
import type { HeldState } from '../state/held-state.js';

export interface SharedAccount {
  /** The name of the run in the account (a parallel unit), carried by its metrics lines. */
  readonly unit: string;
  /** The hourly call/token window of the account, held once for every run. */
  readonly rate: HeldRateWindow;
  /** When the account's budgets started counting run time. */
  readonly startedAt: number;
  /** The spend the budgets count: `own` (this run's) plus every other run's latest. */
  budgetSpend(own: SpendState): SpendState;
  /**
   * The cap of this run's next call: its share of what is left of `maxCostUsd` once every run's
   * spend and the caps of the other calls in flight are taken off (undefined: no cost budget).
   */
  reserveCall(own: SpendState, maxCostUsd: number | null | undefined): number | undefined;
  /** This run's call ended: its cap is released, `own` its spend now. */
  endCall(own: SpendState): void;
  /** The account's pending usage-limit wait, if any. */
  usageWait(): UsageWaitFile | undefined;
  holdUsageWait(wait: UsageWaitFile | undefined): void;
  /** A metrics line of this run, kept where the account's runs are summed (ralph-stats). */
  recordMetrics(line: Record<string, unknown>): void;
}

/** What the account's view of a run reads: its account, if any, and its own wait, spend and clock. */
export interface AccountedRun {
  readonly account?: SharedAccount;
  readonly state: {
    readonly usageWait: HeldState<UsageWaitFile | undefined>;
    readonly spend: Pick<HeldRunSpend, 'value' | 'clockStart'>;
  };
}

/**
 * The pending usage-limit wait: the account's, or this run's own, held in memory from the run's
 * start (.ralph/.usage_limit_wait is its view, read once when the run starts: nothing passes
 * between loops through a file the agent can write).
 */
export function readUsageWait(run: AccountedRun): UsageWaitFile | undefined {
  return run.account ? run.account.usageWait() : run.state.usageWait.value;
}

export function holdRunUsageWait(run: AccountedRun, wait: UsageWaitFile): void {
  if (run.account) return run.account.holdUsageWait(wait);
  run.state.usageWait.set(wait);
}

export function forgetUsageWait(run: AccountedRun): void {
  if (run.account) return run.account.holdUsageWait(undefined);
  run.state.usageWait.set(undefined);
}

/** The spend and start time the run's budgets are checked against. */
export function budgetBasis(run: AccountedRun): { spend: SpendState; startedAt: number } {
  const own = run.state.spend.value.spend;
  return run.account
    ? { spend: run.account.budgetSpend(own), startedAt: Math.min(run.account.startedAt, run.state.spend.clockStart) }
    : { spend: own, startedAt: run.state.spend.clockStart };
}
