// The one account every unit of a parallel run spends: the hourly call/token window (kept in
// the project's own .ralph/ files, as for a single loop), the spend the budgets count (every
// unit's, summed), one usage-limit wait (when one unit hits the limit, all wait, and the wait
// survives a restart in the project's .usage_limit_wait), and the metrics lines, each carrying
// its unit, appended to the project's metrics.jsonl for ralph-stats.
//
// One budget: the cap each call is given (`--max-budget-usd`) is reserved against what is
// left of --max-cost once every unit's spend and every other call in flight's cap are taken
// off, so N units whose agents stop at their caps never spend past --max-cost together.
// What a run of `ralph --parallel` must trust across restarts — each unit's cost and the run
// time so far — is kept in the ledger (run-ledger.ts), outside the agent's reach.

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
import type { ParallelLedgerRecord } from './run-ledger.js';

/** The smallest cap a call is given (a millionth of a dollar): a cap of 0 would mean none. */
const MIN_CAP_USD = 0.000001;

/** The run's record in the ledger: what earlier sessions left, and where each change goes. */
export interface RunLedgerLink {
  runId: string;
  /** What the ledger holds of this run from earlier sessions (its units' costs, its run time). */
  previous?: ParallelLedgerRecord;
  /** Called with the run's record whenever a unit's cost changes. */
  save(record: ParallelLedgerRecord): void;
}

interface UnitSpend {
  /** The unit's latest spend as its loop reported it. */
  own: SpendState;
  /** Its cost when this session first heard of it (a resumed loop's spend includes earlier sessions'). */
  baselineUsd: number;
}

export class AccountLedger {
  readonly rate: HeldRateWindow;
  /** When the run's budgets started counting: now minus the run time of earlier sessions (downtime is not charged). */
  readonly startedAt: number;
  private readonly spends = new Map<string, UnitSpend>();
  /** The cap of each unit's call in flight. */
  private readonly reserved = new Map<string, number>();
  private readonly wait: HeldState<UsageWaitFile | undefined>;
  private readonly earlier: Record<string, number>;
  private readonly now: () => number;
  /** How many units run now (the runner says): the share of what is left a call may reserve. */
  activeUnits: () => number = () => 1;

  constructor(
    private readonly paths: RalphPaths,
    config: RalphConfig,
    state: StateReadOptions,
    private readonly link?: RunLedgerLink,
  ) {
    this.now = () => state.clock.now();
    this.startedAt = this.now() - (link?.previous?.active_ms ?? 0);
    this.earlier = { ...link?.previous?.units };
    this.rate = holdRateWindow(paths, loadRateWindow(paths, state), state.clock);
    this.rate.flush();
    this.wait = holdUsageWait(paths, loadUsageWait(paths, state, longestUsageLimitWaitMs(usageLimitWaitSettings(config))));
    mkdirSync(paths.logsDir, { recursive: true });
  }

  /** The unit's latest spend as its loop last reported it. */
  spendOf(unit: string): SpendState | undefined {
    return this.spends.get(unit)?.own;
  }

  /** The unit's cost over the whole run: earlier sessions' (from the ledger) and this one's. */
  costOf(unit: string): number {
    const spend = this.spends.get(unit);
    return (this.earlier[unit] ?? 0) + (spend ? Math.max(0, spend.own.run.costUsd - spend.baselineUsd) : 0);
  }

  /** Every unit's spend added up, earlier sessions' included. */
  total(own: SpendState): SpendState {
    const settled = Object.values(this.earlier).reduce((sum, cost) => sum + cost, 0);
    const spends = [...this.spends.values()];
    const baseline = spends.reduce((sum, spend) => sum + spend.baselineUsd, 0);
    return sumSpends(
      spends.map((s) => s.own),
      own,
      settled - baseline,
    );
  }

  /** The cap of the unit's next call: its share of --max-cost less all spend and the other calls' caps (undefined: no --max-cost). */
  reserveCall(unit: string, own: SpendState, maxCostUsd: number | null | undefined): number | undefined {
    this.report(unit, own);
    this.reserved.delete(unit);
    if (typeof maxCostUsd !== 'number' || !(maxCostUsd > 0)) return undefined;
    const held = [...this.reserved.values()].reduce((sum, cap) => sum + cap, 0);
    const free = maxCostUsd - this.total(own).run.costUsd - held;
    const share = free / Math.max(1, this.activeUnits() - this.reserved.size);
    const cap = Math.max(MIN_CAP_USD, Math.floor(share * 1e6) / 1e6);
    this.reserved.set(unit, cap);
    return cap;
  }

  /** The unit's call ended (or its loop did): its cap is free again, its spend known. */
  endCall(unit: string, own?: SpendState): void {
    this.reserved.delete(unit);
    if (own) this.report(unit, own);
  }

  /** The unit's loop ended: its cost so far is settled (a later loop of the unit, a conflict pass, starts its spend from zero). */
  endUnitLoop(unit: string): void {
    this.earlier[unit] = this.costOf(unit);
    this.spends.delete(unit);
    this.reserved.delete(unit);
    this.save();
  }

  /** Writes the run's record to the ledger: each unit's cost and the run time so far. */
  save(): void {
    if (!this.link) return;
    const units: Record<string, number> = { ...this.earlier };
    for (const unit of this.spends.keys()) units[unit] = this.costOf(unit);
    this.link.save({ run_id: this.link.runId, active_ms: Math.max(0, this.now() - this.startedAt), units });
  }

  forUnit(unit: string): SharedAccount {
    return {
      unit,
      rate: this.rate,
      startedAt: this.startedAt,
      budgetSpend: (own) => {
        this.report(unit, own);
        return this.total(own);
      },
      reserveCall: (own, maxCostUsd) => this.reserveCall(unit, own, maxCostUsd),
      endCall: (own) => this.endCall(unit, own),
      usageWait: () => this.wait.value,
      holdUsageWait: (wait) => this.wait.set(wait),
      recordMetrics: (line) => appendJsonl(this.paths.metrics, { ...line, unit }),
    };
  }

  private report(unit: string, own: SpendState): void {
    const known = this.spends.get(unit);
    const changed = known?.own.run.costUsd !== own.run.costUsd;
    this.spends.set(unit, { own, baselineUsd: known?.baselineUsd ?? own.run.costUsd });
    if (changed) this.save();
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
    total.run.tokens = {
      input: t.input + s.input,
      output: t.output + s.output,
      cacheRead: t.cacheRead + s.cacheRead,
      cacheCreation: t.cacheCreation + s.cacheCreation,
    };
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
