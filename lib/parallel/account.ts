// The one account every unit of a parallel run spends: the hourly call/token window (kept in
// the project's own .ralph/ files, as for a single loop), the spend the budgets count (every
// unit's, summed), one usage-limit wait (when one unit hits the limit, all wait, and the wait
// survives a restart in the project's .usage_limit_wait), and the metrics lines, each carrying
// its unit, appended to the project's metrics.jsonl for ralph-stats.

import { mkdirSync } from 'node:fs';
import { usageLimitWaitSettings } from '../limits/usage-limit-settings.js';
import type { RalphConfig } from '../config/schema.js';
import { longestUsageLimitWaitMs } from '../limits/reset-time.js';
import type { SpendState } from '../limits/spend.js';
import { holdRateWindow, holdUsageWait, loadRateWindow, loadUsageWait, type HeldRateWindow, type UsageWaitFile } from '../limits/limits-store.js';
import type { HeldState } from '../state/held-state.js';
import type { SharedAccount } from '../limits/shared-account.js';
import { appendJsonl } from '../state/atomic-write.js';
import type { RalphPaths } from '../state/paths.js';
import type { StateReadOptions } from '../state/state-file.js';

export class AccountLedger {
  readonly rate: HeldRateWindow;
  private readonly spends = new Map<string, SpendState>();
  private readonly wait: HeldState<UsageWaitFile | undefined>;

  constructor(
    private readonly paths: RalphPaths,
    config: RalphConfig,
    state: StateReadOptions,
    readonly startedAt: number,
    /** Cost of the units that will not run again (merged in an earlier session of the run). */
    private readonly settledCostUsd = 0,
  ) {
    this.rate = holdRateWindow(paths, loadRateWindow(paths, state), state.clock);
    this.rate.flush();
    this.wait = holdUsageWait(paths, loadUsageWait(paths, state, longestUsageLimitWaitMs(usageLimitWaitSettings(config))));
    mkdirSync(paths.logsDir, { recursive: true });
  }

  /** The unit's latest spend as its loop last reported it. */
  spendOf(unit: string): SpendState | undefined {
    return this.spends.get(unit);
  }

  forUnit(unit: string): SharedAccount {
    return {
      unit,
      rate: this.rate,
      startedAt: this.startedAt,
      budgetSpend: (own) => {
        this.spends.set(unit, own);
        return sumSpends([...this.spends.values()], own, this.settledCostUsd);
      },
      usageWait: () => this.wait.value,
      holdUsageWait: (wait) => this.wait.set(wait),
      recordMetrics: (line) => appendJsonl(this.paths.metrics, { ...line, unit }),
    };
  }
}

/** Every unit's spend added up; the hour's counts only from units in `own`'s hour. */
export function sumSpends(spends: SpendState[], own: SpendState, settledCostUsd = 0): SpendState {
  const total: SpendState = {
    run: { tokens: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 }, costUsd: settledCostUsd, loops: 0, unknownCostLoops: 0, inFlight: false },
    hour: { key: own.hour.key, tokens: 0, costUsd: 0 },
    lastCumulativeBySession: own.lastCumulativeBySession,
  };
  for (const spend of spends) {
    const t = total.run.tokens;
    const s = spend.run.tokens;
    total.run.tokens = { input: t.input + s.input, output: t.output + s.output, cacheRead: t.cacheRead + s.cacheRead, cacheCreation: t.cacheCreation + s.cacheCreation };
    total.run.costUsd += spend.run.costUsd;
    total.run.loops += spend.run.loops;
    total.run.unknownCostLoops += spend.run.unknownCostLoops;
    total.run.inFlight ||= spend.run.inFlight;
    if (spend.hour.key === own.hour.key) {
      total.hour.tokens += spend.hour.tokens;
      total.hour.costUsd += spend.hour.costUsd;
    }
  }
  return total;
}
