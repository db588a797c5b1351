// `ralph --status --json`: the whole machine-readable state in one object. Read-only: nothing
// here repairs, sets aside or rewrites a state file; guard values go through the loop's
// range-checked readers, and what they reject is listed under `warnings`. Loaded only for
// --json, so plain `ralph --status` stays a cold start without zod.

import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { defaultViewConfig, type ViewConfig } from '../config/view-config.js';
import { isPlanComplete } from '../core/fix-plan.js';
import { loadBreaker, loadRateWindow, loadUsageWait } from '../loop/guard-store.js';
import { systemClock, type Clock } from '../platform/clock.js';
import type { Logger } from '../platform/deps.js';
import { parseLenientJson } from '../state/lenient-json.js';
import { readRunSummaryForStatus } from '../session-record/status-summary.js';
import { loadLifecycleState } from '../state/lifecycle-state.js';
import { readPlanFile } from '../state/plan-file.js';
import { isProcessAlive } from '../state/process-alive.js';
import type { StateReadOptions } from '../state/state-file.js';

/**
 * Everything a script may want to know: status, breaker, rate window, usage-limit wait, sessions,
 * budgets and spend, the last analysis, and whether a loop is running. Each part is null when
 * its file is absent or unreadable.
 */
export function collectStatus(
  projectDir: string,
  view: ViewConfig = defaultViewConfig(projectDir),
  clock: Clock = systemClock,
): Record<string, unknown> {
  const { paths } = view;
  // The Bash tool hand-builds status.json and progress.json (unescaped strings): salvage fields.
  const read = (path: string) => (existsSync(path) ? parseLenientJson(readText(path) ?? '') ?? null : null);
  const warnings: string[] = [];
  const logger = warningCollector(warnings);
  const readOnly: StateReadOptions = { logger, clock, quarantine: false };
  const rate = loadRateWindow(paths, readOnly);
  const status = read(paths.status) as Record<string, unknown> | null;
  const run = read(paths.runState) as {
    run_id?: string;
    active_ms?: number;
    spend?: { run?: { costUsd?: number; loops?: number; unknownCostLoops?: number; tokens?: Record<string, number> } };
  } | null;
  const field = (name: string) => status?.[name] ?? null;
  return {
    status: field('status'),
    exit_reason: field('exit_reason'),
    last_action: field('last_action'),
    loop_count: field('loop_count'),
    // The agent the loop calls now, and the agents waiting out a usage limit (FALLBACK_AGENTS).
    agent: field('agent'),
    agent_limits: read(paths.agentLimits),
    running: readLock(paths.lock),
    status_file: status,
    progress: read(paths.progress),
    circuit_breaker: read(paths.circuitBreakerState) ? loadBreaker(paths, readOnly) : null,
    rate_window: {
      calls_this_hour: existsSync(paths.callCount) ? rate.calls : null,
      max_calls_per_hour: field('max_calls_per_hour'),
      tokens_this_hour: existsSync(paths.tokenCount) ? rate.tokens : null,
      max_tokens_per_hour: field('max_tokens_per_hour'),
      window: rate.lastReset || null,
      next_reset: field('next_reset'),
    },
    usage_limit_wait: (read(paths.usageLimitWait) && loadUsageWait(paths, readOnly)) ?? null,
    budgets: {
      max_loops: field('max_loops'),
      max_cost_usd: field('max_cost_usd'),
      max_tokens_per_hour: field('max_tokens_per_hour'),
      run_cost_usd: run?.spend?.run?.costUsd ?? field('run_cost_usd'),
      run_tokens: field('run_tokens'),
      run_loops: run?.spend?.run?.loops ?? field('run_loops'),
      run_unknown_cost_calls: run?.spend?.run?.unknownCostLoops ?? field('run_unknown_cost_calls'),
      run_minutes: typeof run?.active_ms === 'number' ? Math.floor(run.active_ms / 60_000) : null,
      run_id: run?.run_id ?? null,
    },
    exit_signals: read(paths.exitSignals),
    last_analysis: read(paths.responseAnalysis),
    plan: readPlan(paths.projectDir, paths.fixPlan, view),
    session: read(paths.ralphSession),
    claude_session: readClaudeSession(paths.claudeSessionId),
    run,
    // The iteration session record (.ralph/sessions/): status, attempts, last verification, gap.
    session_record: readRunSummaryForStatus(paths),
    // The GitHub issue of --github-issue: the issue, what was posted, the pull request URL.
    github_lifecycle: loadLifecycleState(paths, readOnly) ?? null,
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

/** A logger that keeps the readers' warnings for the JSON (nothing is printed: stdout is the JSON). */
function warningCollector(warnings: string[]): Logger {
  const ignore = () => {};
  return { log: (level, message) => void (level === 'WARN' && warnings.push(message)), info: ignore, warn: (message) => void warnings.push(message), error: ignore, success: ignore, debug: ignore };
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** `.claude_session_id`: JSON `{session_id, timestamp}`, or the Bash tool's older plain id. */
function readClaudeSession(path: string): Record<string, unknown> | null {
  const text = readText(path)?.trim();
  if (!text) return null;
  const parsed = tryParse(text);
  if (parsed && typeof parsed === 'object') return parsed as Record<string, unknown>;
  return /^[A-Za-z0-9_-]+$/.test(text) ? { session_id: text, timestamp: null } : null;
}

function readLock(path: string): { pid: number; alive: boolean; started_at: unknown } | null {
  const lock = tryParse(readText(path) ?? '') as { pid?: unknown; startedAt?: unknown } | undefined;
  if (!lock || typeof lock.pid !== 'number') return null;
  return { pid: lock.pid, alive: isProcessAlive(lock.pid), started_at: lock.startedAt ?? null };
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
