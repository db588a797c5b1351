// The run's spend across restarts. `.run_state` holds the calls, cost, tokens and run time of
// the run the session record names: a resumed run takes them up (a call a dead ralph left in
// flight stays counted, its cost unknown), a new run starts from zero. When `.run_state` is
// unreadable or missing for a run that made calls, a warning names it and the budgets count
// what the session record still holds; neither file alone can make the counts go back.

import { basename, relative } from 'node:path';
import { formatRunCost, mergeSpend, settleCutOffCall, startCall } from '../core/spend.js';
import { spendFromRecord } from '../session-record/record-spend.js';
import { runRecordPath } from '../session-record/store.js';
import { loadRunState, newRunState, saveRunState, type RunState } from './guard-store.js';
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
  rt.run = run;
  rt.runClockStart = now - run.active_ms;
  saveRunSpend(rt);
}

/** The call counts before the agent is spawned, so a `kill -9` mid-call still counts it. */
export function beginCallSpend(rt: LoopRuntime): void {
  rt.run = { ...rt.run, spend: startCall(rt.run.spend) };
  saveRunSpend(rt);
}

/** Writes `.run_state` with the run time so far (nothing in a dry run). */
export function saveRunSpend(rt: LoopRuntime): void {
  if (!rt.recorder) return;
  rt.run = { ...rt.run, active_ms: Math.max(0, rt.deps.clock.now() - rt.runClockStart) };
  saveRunState(rt.paths, rt.run);
}

function recentSessions(totals: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(totals).slice(-SESSIONS_CARRIED));
}
