// The run's spend across restarts. `.run_state` holds the calls, cost, tokens and run time of
// the run the session record names: a resumed run takes them up (a call a dead ralph left in
// flight stays counted, its cost unknown), a new run starts from zero. When `.run_state` is
// unreadable or missing for a run that made calls, a warning names it and the budgets count
// what the session record still holds; neither file alone can make the counts go back.
// The spend is then held for the run and written through: `.run_state` is never read back
// mid-run (the agent can write it), so an agent that rewrites it cannot reset its budgets.

import { basename, relative } from 'node:path';
import {
  UNKNOWN_COST_STREAK_LIMIT,
  cancelCall,
  formatRunCost,
  formatUsd,
  unknownCallCharge,
  mergeSpend,
  recordLoopSpend,
  remainingCostBudget,
  settleCutOffCall,
  startCall,
  type LoopSpendInput,
  type SpendState,
} from './spend.js';
import { spendFromRecord } from '../run-record/record-spend.js';
import { runRecordPath } from '../run-record/record-store.js';
import { loadRunSpend, newRunSpend, type RunSpend } from './limits-store.js';
import type { RunRecorder } from '../run-record/run-recorder.js';
import type { Run, RunSetup } from '../loop/run.js';

/** Agent sessions outlive runs; the cumulative totals of the most recent ones are carried over. */
const SESSIONS_CARRIED = 20;

/** After the session record is opened: the spend of the run it continues, or of a new run. */
export function openRunSpend(run: RunSetup, recorder: RunRecorder | undefined): void {
  const { paths, deps } = run;
  const now = deps.clock.now();
  run.state.spend.startClock(now);
  // A dry run keeps no record and makes no call: it must not touch the real run's spend.
  if (!recorder) return;
  const record = recorder.record;
  const loaded = loadRunSpend(paths, run.readOptions);
  let kept: RunSpend;
  if (recorder.decision.kind !== 'resume') {
    kept = newRunSpend(now, record.run_id);
    // A new run may resume the same agent session: its earlier total must not be charged again.
    if (loaded.value) kept.spend.lastCumulativeBySession = recentSessions(loaded.value.spend.lastCumulativeBySession);
  } else {
    const fromRecord = spendFromRecord(record, now);
    const own = loaded.value?.run_id === record.run_id ? loaded.value : undefined;
    if (own) {
      kept = { ...own, active_ms: Math.max(own.active_ms, fromRecord.activeMs), spend: mergeSpend(settleCutOffCall(own.spend), fromRecord.spend) };
    } else {
      if (record.attempts.length > 0) {
        const why = loaded.status === 'corrupt' ? 'is unreadable' : loaded.value ? 'belongs to another run' : 'is missing';
        const source = relative(paths.projectDir, runRecordPath(paths, record.run_id));
        deps.logger.warn(`${basename(paths.runState)} ${why}; the budgets of run ${record.run_id} count what its session record ${source} holds`);
      }
      const created = Date.parse(record.created_at);
      kept = { run_id: record.run_id, started_at_ms: Number.isFinite(created) ? created : now, active_ms: fromRecord.activeMs, spend: fromRecord.spend };
    }
    const minutes = Math.floor(kept.active_ms / 60_000);
    deps.logger.info(`Run ${record.run_id} so far: ${kept.spend.run.loops} agent call(s), ${formatRunCost(kept.spend)}, ${minutes} min`);
  }
  run.state.spend.adopt(paths, kept, now);
}

/** The call counts before the agent is spawned, so a `kill -9` mid-call still counts it (with the cap it is given). */
export function beginCallSpend(run: Run): void {
  holdSpend(run, startCall(run.state.spend.value.spend, callBudgetOf(run)));
}

/**
 * The call's cost and tokens once the agent exited; 'not_started': no call was made, it is taken
 * back. A call that reported no cost is charged what it could have cost, and the log says so.
 */
export function endCallSpend(run: Run, call: LoopSpendInput | 'not_started'): void {
  const spend = run.state.spend.value.spend;
  const next = call === 'not_started' ? cancelCall(spend) : recordLoopSpend(spend, call, run.deps.clock.now());
  holdSpend(run, next);
  run.account?.endCall(run.state.spend.value.spend);
  if (call === 'not_started') return;
  const charged = (next.run.unknownChargedUsd ?? 0) - (spend.run.unknownChargedUsd ?? 0);
  if (next.run.unknownCostLoops > spend.run.unknownCostLoops && call.reportsCost !== false) {
    run.deps.logger.warn(describeUnknownCharge(charged, unknownCallCharge(spend, call.cutOffByRalph).basis, run.state.agentChoice.agent.label));
  }
}

/** The run's calls of unknown cost in a row (ralph's own cut-offs aside) have reached the limit: the halt's message, else undefined. */
export function unknownCostHalt(run: Run): string | undefined {
  const streak = run.state.spend.value.spend.run.unknownCostStreak ?? 0;
  if (streak < UNKNOWN_COST_STREAK_LIMIT) return undefined;
  return `${streak} agent calls in a row ended without reporting their cost (no result line: the CLI was killed or crashed); each was charged what it could have cost, and the run stops before its cost goes unseen (${formatRunCost(run.state.spend.value.spend)} so far). Check the CLI's output in .ralph/logs/, then run ralph again`;
}

function describeUnknownCharge(usd: number, basis: 'cap' | 'highest' | 'none', agent: string): string {
  const why =
    basis === 'cap'
      ? 'the per-call cap it was given (--max-budget-usd)'
      : basis === 'highest'
        ? 'the highest cost of one call in this run'
        : 'no call of this run has reported a cost yet';
  return `${agent} reported no cost for this call (no result line); charged $${formatUsd(usd)}, ${why}`;
}

function holdSpend(run: Run, spend: SpendState): void {
  run.state.spend.hold(spend, run.deps.clock.now());
}

function recentSessions(totals: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(totals).slice(-SESSIONS_CARRIED));
}

/** What is left of --max-cost, as the cap of the next call for a CLI that takes one (else undefined). */
export function callBudgetOf(run: Run): number | undefined {
  const slot = run.agents.find((s) => s.adapter === run.state.agentChoice.agent);
  return slot?.acceptsMaxBudget ? remainingCostBudget(run.state.spend.value.spend, run.config.MAX_COST_USD) : undefined;
}

/**
 * The cap of the call about to start. A run that shares an account (ralph --parallel) reserves
 * it there, against what the account's other runs spent and may still spend in flight; the
 * reservation ends with the call (endCallSpend).
 */
export function reserveCallBudget(run: Run): number | undefined {
  const slot = run.agents.find((s) => s.adapter === run.state.agentChoice.agent);
  if (!slot?.acceptsMaxBudget) return undefined;
  const own = run.state.spend.value.spend;
  return run.account ? run.account.reserveCall(own, run.config.MAX_COST_USD) : remainingCostBudget(own, run.config.MAX_COST_USD);
}
