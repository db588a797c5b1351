// `ralph --status`: prints .ralph/status.json (ours or the Bash tool's) as the Bash tool does,
// or with --json the whole machine-readable state in one object (filtered by --jq if given).
// Read-only: nothing here repairs, sets aside or rewrites a state file.

import { existsSync, readFileSync } from 'node:fs';
import { parseLenientJson } from '../state/lenient-json.js';
import { readRunSummaryForStatus } from '../session-record/status-summary.js';
import { ralphPaths } from '../state/paths.js';
import { isProcessAlive } from '../state/process-alive.js';

export interface ShowStatusOptions {
  projectDir: string;
  json: boolean;
  /** jq filter applied to the JSON (implies json). */
  jq?: string;
  write: (text: string) => void;
}

export const NO_STATUS_MESSAGE = 'No status file found. Ralph may not be running.';

export async function showStatus(options: ShowStatusOptions): Promise<number> {
  const paths = ralphPaths(options.projectDir);
  if (options.json || options.jq !== undefined) {
    const { printJson } = await import('./print-json.js');
    await printJson(collectStatus(options.projectDir), options.jq, options.write);
    return 0;
  }
  if (!existsSync(paths.status)) {
    options.write(`${NO_STATUS_MESSAGE}\n`);
    return 0;
  }
  const raw = readFileSync(paths.status, 'utf8');
  options.write('Current Status:\n');
  const parsed = tryParse(raw);
  // Like the Bash tool: pretty JSON when it parses, the raw text otherwise.
  options.write(parsed === undefined ? raw : `${JSON.stringify(parsed, null, 2)}\n`);
  const stale = staleRunningPid(parsed);
  if (stale !== undefined) {
    options.write(`Note: the ralph process that wrote this (pid ${stale}) is no longer running; run ralph to resume.\n`);
  }
  return 0;
}

/** A status that still says `running` although its writer is gone (killed with -9, a crash). */
function staleRunningPid(status: unknown): number | undefined {
  if (typeof status !== 'object' || status === null) return undefined;
  const { status: state, pid } = status as { status?: unknown; pid?: unknown };
  if (state !== 'running' || typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  return isProcessAlive(pid) ? undefined : pid;
}

/**
 * Everything a script may want to know: status, breaker, rate window, usage-limit wait, sessions,
 * budgets and spend, the last analysis, and whether a loop is running. Each part is null when
 * its file is absent or unreadable.
 */
export function collectStatus(projectDir: string): Record<string, unknown> {
  const paths = ralphPaths(projectDir);
  // The Bash tool hand-builds status.json and progress.json (unescaped strings): salvage fields.
  const read = (path: string) => (existsSync(path) ? parseLenientJson(readText(path) ?? '') ?? null : null);
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
    running: readLock(paths.lock),
    status_file: status,
    progress: read(paths.progress),
    circuit_breaker: read(paths.circuitBreakerState),
    rate_window: {
      calls_this_hour: readInteger(paths.callCount),
      max_calls_per_hour: field('max_calls_per_hour'),
      tokens_this_hour: readInteger(paths.tokenCount),
      max_tokens_per_hour: field('max_tokens_per_hour'),
      window: readText(paths.lastReset)?.trim() || null,
      next_reset: field('next_reset'),
    },
    usage_limit_wait: read(paths.usageLimitWait),
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
    session: read(paths.ralphSession),
    claude_session: readClaudeSession(paths.claudeSessionId),
    run,
    // The iteration session record (.ralph/sessions/): status, attempts, last verification, gap.
    session_record: readRunSummaryForStatus(paths),
  };
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function readInteger(path: string): number | null {
  const text = readText(path)?.trim();
  return text && /^-?\d+$/.test(text) ? Number(text) : null;
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
