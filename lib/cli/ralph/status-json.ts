// `ralph --status --json`: the whole machine-readable state in one object. Read-only: nothing
// here repairs, sets aside or rewrites a state file. Every file is read through the loop's own
// readers (lib/state, and the range-checked guard readers) with the project's effective config,
// and what they reject is listed under `warnings`. Loaded only for
// --json, so plain `ralph --status` stays a cold start without zod.

import { loadAgentLimits } from '../../agent-run/agent-limits.js';
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { ViewConfig } from '../../config/view-config.js';
import { isPlanComplete } from '../../plan/fix-plan.js';
import { isOfCurrentRun } from '../../monitor/run-facts.js';
import { longestUsageLimitWaitMs } from '../../limits/reset-time.js';
import { loadUsageWait } from '../../limits/limits-store.js';
import { readLedgerFigures, runTokens, warningCollector } from './status-ledger.js';
import { heldPlanItems } from './status-plan.js';
import { systemClock, type Clock } from '../../platform/clock.js';
import { readClaudeSessionId } from '../../sessions/claude-session-id.js';
import { readProjectLock } from '../../state/lock.js';
import { readParallelStatus } from '../../parallel/status-view.js';
import { readRunSummaryForStatus } from '../../run-record/status-summary.js';
import { loadLifecycleState } from '../../lifecycle/lifecycle-state.js';
import { readPlanFile } from '../../plan/plan-file.js';
import { isProcessAlive } from '../../state/process-alive.js';
import type { StatusFile } from '../../state/schemas.js';
import type { StateReadOptions, StateReadResult } from '../../state/state-file.js';
import { loadExitSignals, loadProgress, loadRalphSession, loadResponseAnalysis, loadStatus } from '../../state/store.js';

/**
 * Everything a script may want to know: status, breaker, rate window, usage-limit wait, sessions,
 * budgets and spend, the last analysis, and whether a loop is running. Each part is null when
 * its file is absent or unreadable.
 */
export function collectStatus(projectDir: string, view: ViewConfig, clock: Clock = systemClock): Record<string, unknown> {
  const { paths } = view;
  const warnings: string[] = [];
  const logger = warningCollector(warnings);
  const readOnly: StateReadOptions = { logger, clock, quarantine: false };
  // The loop's own readers (lenient for the Bash tool's hand-built files); null: no usable file.
  const present = <T>(result: StateReadResult<T>): T | null => (result.status === 'ok' || result.status === 'recovered' ? result.value : null);
  const status = present(loadStatus(paths, readOnly));
  const lock = readProjectLock(paths.lock);
  // The run's figures come from ralph's ledger outside the project; where a view differs, it is said.
  const figures = readLedgerFigures(paths, status, lock ? isProcessAlive(lock.pid) : false, readOnly);
  warnings.push(...figures.differences);
  const { rate, run } = figures;
  const claudeSession = readClaudeSessionId(paths.claudeSessionId, readOnly);
  const field = <K extends keyof StatusFile>(name: K) => status?.[name] ?? null;
  const currentRunId = run?.run_id;
  const record = readRunSummaryForStatus(paths);
  const lifecycle = loadLifecycleState(paths, readOnly);
  const ofCurrentRun = <T>(ofRun: string | null | undefined, fact: T | null | undefined): T | null =>
    fact && isOfCurrentRun(ofRun, currentRunId) ? fact : null;
  return {
    status: field('status'),
    exit_reason: field('exit_reason'),
    last_action: field('last_action'),
    // loops_run is the count every view shows; loop_count is the Bash tool's loop number (one more when a guard stopped the run).
    loop_count: field('loop_count'),
    loops_run: field('loops_run'),
    // How the last run ended, as it printed it (loop/run-summary.ts).
    run_summary: field('run_summary'),
    // The agent the loop calls now, and the agents waiting out a usage limit (FALLBACK_AGENTS).
    agent: field('agent'),
    agent_limits: existsSync(paths.agentLimits) ? loadAgentLimits(paths, readOnly, longestUsageLimitWaitMs(view.usageWait)) : null,
    running: lock ? { pid: lock.pid, alive: isProcessAlive(lock.pid), started_at: lock.startedAt || null } : null,
    status_file: status,
    progress: present(loadProgress(paths, readOnly)),
    // The ledger's breaker (range-checked as the loop checks it; the repair is not saved: read-only).
    circuit_breaker: figures.breaker,
    rate_window: {
      calls_this_hour: figures.ledger?.rate || existsSync(paths.callCount) ? rate.calls : null,
      max_calls_per_hour: field('max_calls_per_hour'),
      tokens_this_hour: figures.ledger?.rate || existsSync(paths.tokenCount) ? rate.tokens : null,
      // What each token figure counts: the hourly budget's, and the run's under budgets.
      tokens_counted: 'input + output',
      max_tokens_per_hour: field('max_tokens_per_hour'),
      window: rate.lastReset || null,
      next_reset: field('next_reset'),
    },
    usage_limit_wait: loadUsageWait(paths, readOnly, longestUsageLimitWaitMs(view.usageWait)) ?? null,
    budgets: {
      max_loops: field('max_loops'),
      max_cost_usd: field('max_cost_usd'),
      max_tokens_per_hour: field('max_tokens_per_hour'),
      // Sums of floats (0.026999999999999996): rounded as status.json's copy is.
      run_cost_usd: run ? Number(run.spend.run.costUsd.toFixed(6)) : field('run_cost_usd'),
      run_tokens: run ? runTokens(run) : field('run_tokens'),
      run_tokens_counted: 'input + output + cache reads + cache writes',
      run_loops: run?.spend.run.loops ?? field('run_loops'),
      run_unknown_cost_calls: run?.spend.run.unknownCostLoops ?? field('run_unknown_cost_calls'),
      run_minutes: run ? Math.floor(run.active_ms / 60_000) : null,
      run_id: run?.run_id ?? null,
    },
    exit_signals: present(loadExitSignals(paths, readOnly)),
    last_analysis: present(loadResponseAnalysis(paths, readOnly)),
    plan: readPlan(paths.projectDir, paths.fixPlan, view),
    // Open plan items the agent hid, which still count as open (as the log and the dashboard name them).
    plan_note: field('plan_note'),
    // The items ralph counts as open against what the plan shows, from the plan's memory beside
    // the ledger, numbered for ralph --accept-item.
    plan_held_open: heldPlanItems(view, (message) => warnings.push(message)),
    session: present(loadRalphSession(paths, readOnly)),
    claude_session: claudeSession ? { session_id: claudeSession.sessionId, timestamp: claudeSession.timestamp ?? null } : null,
    run,
    // ralph's own record outside the project (null: none yet); `.ralph/` holds views of it.
    ledger: figures.ledger,
    // The iteration session record (.ralph/sessions/): status, attempts, last verification, gap.
    session_record: ofCurrentRun(record?.run_id, record),
    // The GitHub issue of --github-issue: the issue, what was posted, the pull request URL.
    github_lifecycle: ofCurrentRun(lifecycle?.run_id, lifecycle),
    // What an earlier run left (its record, its issue), labelled so: the current run has none of its own.
    from_earlier_runs: {
      session_record: record && !isOfCurrentRun(record.run_id, currentRunId) ? record : null,
      github_lifecycle: lifecycle && !isOfCurrentRun(lifecycle.run_id, currentRunId) ? lifecycle : null,
    },
    // ralph --parallel: the run and each unit (item, branch, worktree, state, loops, cost, exit reason).
    parallel: readParallelStatus(paths, readOnly),
    // State values that were out of range or unreadable, each naming its file.
    warnings,
  };
}

/** Plan progress as the loop counts it: blocking items are done / remaining; optional apart. */
function readPlan(projectDir: string, file: string, view: ViewConfig): Record<string, unknown> | null {
  let plan;
  try {
    plan = readPlanFile(file, view.optionalSections);
  } catch {
    return null;
  }
  if (!plan) return null;
  return {
    file: relative(projectDir, file),
    done: plan.blocking.done,
    remaining: plan.blocking.open,
    total: plan.blocking.done + plan.blocking.open,
    optional_open: plan.optional.open,
    optional_done: plan.optional.done,
    complete: isPlanComplete(plan),
    open_items: plan.openItems,
    ...(view.warnings.length > 0 ? { warnings: view.warnings } : {}),
  };
}
