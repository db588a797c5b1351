// The run's spend across restarts. `.run_state` holds the calls, cost, tokens and run time of
// the run the session record names: a resumed run takes them up (a call a dead ralph left in
// flight stays counted, its cost unknown), a new run starts from zero. When `.run_state` is
// unreadable or missing for a run that made calls, a warning names it and the budgets count
// what the session record still holds; neither file alone can make the counts go back.
// The spend is then held for the run and written through: `.run_state` is never read back
// mid-run (the agent can write it), so an agent that rewrites it cannot reset its budgets.

import { basename, relative } from 'node:path';
import {
  cancelCall,
  formatRunCost,
  mergeSpend,
  recordLoopSpend,
  remainingCostBudget,
  settleCutOffCall,
  startCall,
  type LoopSpendInput,
  type SpendState,
} from '../core/spend.js';
import { spendFromRecord } from '../session-record/record-spend.js';
import { runRecordPath } from '../session-record/store.js';
import { loadRunState, newRunState, saveRunState, type RunState } from './guard-store.js';
import { HeldState } from './held-state.js';
import type { LoopRuntime } from './runtime.js';

/** Agent sessions outlive runs; the cumulative totals of the most recent ones are carried over. */
const SESSIONS_CARRIED = 20;

/** After the session record is opened: the spend of the run it continues, or of a new run. */
export function openRunSpend(rt: LoopRuntime): void {
  const { paths, deps, recorder } = rt;
  const now = deps.clock.now();
  rt.runClockStart = now;
  // A dry run keeps no record and makes no call: it must not touch the real run's spend.
  if (!recorder) return;
  const record = recorder.record;
  const loaded = loadRunState(paths, rt.state);
  let run: RunState;
  if (recorder.decision.kind !== 'resume') {
    run = newRunState(now, record.run_id);
    // A new run may resume the same agent session: its earlier total must not be charged again.
    if (loaded.value) run.spend.lastCumulativeBySession = recentSessions(loaded.value.spend.lastCumulativeBySession);
  } else {
    const fromRecord = spendFromRecord(record, now);
    const own = loaded.value?.run_id === record.run_id ? loaded.value : undefined;
    if (own) {
      run = { ...own, active_ms: Math.max(own.active_ms, fromRecord.activeMs), spend: mergeSpend(settleCutOffCall(own.spend), fromRecord.spend) };
    } else {
      if (record.attempts.length > 0) {
        const why = loaded.status === 'corrupt' ? 'is unreadable' : loaded.value ? 'belongs to another run' : 'is missing';
        const source = relative(paths.projectDir, runRecordPath(paths, record.run_id));
        deps.logger.warn(`${basename(paths.runState)} ${why}; the budgets of run ${record.run_id} count what its session record ${source} holds`);
      }
      const created = Date.parse(record.created_at);
      run = { run_id: record.run_id, started_at_ms: Number.isFinite(created) ? created : now, active_ms: fromRecord.activeMs, spend: fromRecord.spend };
    }
    const minutes = Math.floor(run.active_ms / 60_000);
    deps.logger.info(`Run ${record.run_id} so far: ${run.spend.run.loops} agent call(s), ${formatRunCost(run.spend)}, ${minutes} min`);
  }
  rt.runClockStart = now - run.active_ms;
  rt.run = new HeldState(run, (next) => saveRunState(paths, next));
  rt.run.flush();
}

/** The spend a run holds before its record is open, and for good in a dry run: never saved. */
export function unsavedRunSpend(now: number): HeldState<RunState> {
  return new HeldState(newRunState(now), () => undefined);
}

/** The call counts before the agent is spawned, so a `kill -9` mid-call still counts it. */
export function beginCallSpend(rt: LoopRuntime): void {
  holdSpend(rt, startCall(rt.run.value.spend));
}

/** The call's cost and tokens once the agent exited; 'not_started': no call was made, it is taken back. */
export function endCallSpend(rt: LoopRuntime, call: LoopSpendInput | 'not_started'): void {
  const spend = rt.run.value.spend;
  holdSpend(rt, call === 'not_started' ? cancelCall(spend) : recordLoopSpend(spend, call, rt.deps.clock.now()));
}

/** The new spend with the run time so far, written through to `.run_state`. */
function holdSpend(rt: LoopRuntime, spend: SpendState): void {
  rt.run.set({ ...rt.run.value, spend, active_ms: Math.max(0, rt.deps.clock.now() - rt.runClockStart) });
}

function recentSessions(totals: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(totals).slice(-SESSIONS_CARRIED));
}

/** What is left of --max-cost, as the cap of the next call for a CLI that takes one (else undefined). */
export function callBudgetOf(rt: LoopRuntime): number | undefined {
  const slot = rt.agents.find((s) => s.adapter === rt.agent);
  return slot?.acceptsMaxBudget ? remainingCostBudget(rt.run.value.spend, rt.config.MAX_COST_USD) : undefined;
}
