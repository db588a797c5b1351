// Builds a DashboardSnapshot from the texts of the state files, ours or the Bash tool's. Pure:
// a missing or corrupt file becomes a warning line and an absent section, never an exception.
// Each text is read through the loop's own parsers and schemas (lib/state), so the dashboard
// and the loop agree on what a file holds.

import type { z } from 'zod';
import { parseFixPlan } from '../plan/fix-plan.js';
import { countProblem, MAX_CALLS_IN_WINDOW, MAX_TOKENS_IN_WINDOW, usageWaitProblem } from '../breaker/guard-ranges.js';
import { longestUsageLimitWaitMs, type UsageLimitWaitSettings } from '../limits/reset-time.js';
import { parseIntegerText } from '../state/integer-file.js';
import { lifecycleStateSchema } from '../lifecycle/lifecycle-state.js';
import { queueFileSchema } from '../queue/queue-file.js';
import { parallelFileSchema } from '../parallel/run-state.js';
import {
  circuitBreakerFileSchema,
  progressFileSchema,
  responseAnalysisFileSchema,
  runStateFileSchema,
  statusFileSchema,
  usageWaitFileSchema,
  type UsageWaitFile,
} from '../state/schemas.js';
import { parseStateText } from '../state/state-file.js';
import { MAX_RUN_ALERTS } from '../state/schemas.js';
import type {
  UnitView,
  AgentProgressView,
  AnalysisView,
  BreakerView,
  DashboardSnapshot,
  LoopStatusView,
  PlanProgress,
  QueueView,
  IssueLifecycleView,
  StateTexts,
  UsageWaitView,
} from './snapshot.js';
import { parseLocalStamp } from './time-format.js';
import { isOfCurrentRun } from './run-facts.js';

type JsonObject = Record<string, unknown>;

const ACTIVE_STATUSES = new Set(['running', 'paused', 'executing']);

export interface AssembleOptions {
  projectDir: string;
  now: number;
  ralphDirFound: boolean;
  /** Problems met while reading (permission denied, …), shown as warnings. */
  readWarnings?: string[];
  /** fix_plan.md headings whose items do not block completion (the effective OPTIONAL_SECTIONS). */
  optionalSections: string[];
  /** The effective usage-limit margin and fallback: a stored wait is checked as the loop checks it. */
  usageWait: UsageLimitWaitSettings;
  /** The plan file as the project names it (FIX_PLAN_FILE), for the dashboard. */
  planFile: string;
  /** Liveness of the pid ours records in status.json; without it, no stale-status check. */
  isProcessAlive?: (pid: number) => boolean;
  /**
   * Parse results kept between calls (the dashboard passes the same map every frame): a file
   * whose text is unchanged is not parsed and validated again, which keeps an idle frame cheap.
   */
  memo?: ParseMemo;
}

export type ParseMemo = Map<string, { text: string; value: unknown; warnings: string[] }>;

function memoized<T>(memo: ParseMemo | undefined, key: string, text: string, warnings: string[], parse: (w: string[]) => T): T {
  const hit = memo?.get(key);
  if (hit && hit.text === text) {
    warnings.push(...hit.warnings);
    return hit.value as T;
  }
  const own: string[] = [];
  const value = parse(own);
  memo?.set(key, { text, value, warnings: own });
  warnings.push(...own);
  return value;
}

export function assembleSnapshot(texts: StateTexts, options: AssembleOptions): DashboardSnapshot {
  const warnings = [...(options.readWarnings ?? [])];
  const json = (name: string, text: string | undefined, schema: z.ZodType): JsonObject | undefined =>
    text === undefined ? undefined : memoized(options.memo, name, text, warnings, (w) => readStateText(name, text, schema, w));

  // A missing status.json (or .ralph/) is shown by the Loop section itself, in red.
  const liveTail = tailLines(texts.liveLogTail, 200);
  const status = json('status.json', texts.status, statusFileSchema);
  const pid = int(status?.pid);
  // Ours records its pid; the Bash tool does not, but rewrites progress.json every 10 s.
  const loopAlive = pid === undefined ? undefined : options.isProcessAlive?.(pid);
  const loopGone = loopAlive === false && ACTIVE_STATUSES.has(str(status?.status) ?? '');
  if (loopGone) warnings.push(`the loop (pid ${pid}) is no longer running; the state shown is from when it stopped`);
  const currentRunId = str(json('.run_state', texts.runState, runStateFileSchema)?.run_id);
  const lifecycle = json('.github_lifecycle_state', texts.githubLifecycle, lifecycleStateSchema);
  return {
    projectDir: options.projectDir,
    takenAt: options.now,
    ralphDirFound: options.ralphDirFound,
    ...(loopGone ? { loopGone } : {}),
    status: readStatus(status),
    progress: readProgress(json('progress.json', texts.progress, progressFileSchema), { liveTail, now: options.now, loopAlive, bashWriter: pid === undefined }),
    breaker: readBreaker(json('.circuit_breaker_state', texts.breaker, circuitBreakerFileSchema)),
    rate: {
      calls: readCounter(texts.callCount, '.call_count', MAX_CALLS_IN_WINDOW, warnings),
      tokens: readCounter(texts.tokenCount, '.token_count', MAX_TOKENS_IN_WINDOW, warnings),
      hourKey: texts.lastReset?.trim() || undefined,
    },
    analysis: readAnalysis(json('.response_analysis', texts.analysis, responseAnalysisFileSchema)),
    plan:
      texts.fixPlan === undefined
        ? undefined
        : memoized(options.memo, 'fix_plan.md', texts.fixPlan, warnings, (w) => readPlan(texts.fixPlan!, options.optionalSections, options.planFile, w)),
    planFile: options.planFile,
    usageWait: readUsageWait(texts.usageWait, options.now, options.usageWait, warnings) ?? readStatusUsageWait(status, options.now),
    queue: readQueue(json('queue.json', texts.queue, queueFileSchema)),
    units: readUnits(json('parallel.json', texts.parallel, parallelFileSchema)),
    // An earlier run's issue is not this run's: not shown.
    issue: isOfCurrentRun(str(lifecycle?.run_id), currentRunId) ? readIssueLifecycle(lifecycle) : undefined,
    ...(currentRunId ? { currentRunId } : {}),
    ralphLogTail: tailLines(texts.ralphLogTail, 200),
    liveTail,
    warnings,
  };
}

function readStatus(obj: JsonObject | undefined): LoopStatusView | undefined {
  if (!obj) return undefined;
  const sandbox = isJsonObject(obj.sandbox) ? obj.sandbox : undefined;
  const provider = str(sandbox?.provider);
  return {
    // The loops run, as every view counts them; a status.json of the Bash tool has only its loop number.
    loopCount: int(obj.loops_run) ?? int(obj.loop_count),
    // A name, never text to render: the agent can write status.json.
    agent: /^[a-z][a-z0-9-]{0,30}$/.test(str(obj.agent) ?? '') ? str(obj.agent) : undefined,
    status: str(obj.status),
    lastAction: str(obj.last_action),
    exitReason: str(obj.exit_reason),
    timestamp: str(obj.timestamp),
    callsThisHour: int(obj.calls_made_this_hour),
    maxCallsPerHour: int(obj.max_calls_per_hour),
    tokensThisHour: int(obj.tokens_used_this_hour),
    maxTokensPerHour: int(obj.max_tokens_per_hour),
    sandbox:
      provider && provider !== 'none' && provider !== 'null'
        ? {
            provider,
            id: str(sandbox?.sandbox_id) ?? str(sandbox?.container_id),
            status: str(sandbox?.status),
            estimatedCost: str(sandbox?.estimated_cost) ?? num(sandbox?.estimated_cost)?.toFixed(4),
          }
        : undefined,
    costUsdRun: num(obj.run_cost_usd) ?? num(obj.cost_usd_run),
    unknownCostCalls: int(obj.run_unknown_cost_calls),
    maxCostUsd: num(obj.max_cost_usd),
    tokensRun: int(obj.run_tokens) ?? int(obj.tokens_run),
    maxLoops: int(obj.max_loops),
    startedAt: isoTime(obj.started_at),
    updatedAt: isoTime(obj.timestamp),
    alerts: Array.isArray(obj.run_alerts) ? obj.run_alerts.filter((a): a is string => typeof a === 'string').slice(-MAX_RUN_ALERTS) : undefined,
    planNote: str(obj.plan_note),
    runSummary: summaryLines(obj.run_summary),
  };
}

function summaryLines(value: unknown): string[] | undefined {
  if (!isJsonObject(value) || !Array.isArray(value.lines)) return undefined;
  const lines = value.lines.filter((line): line is string => typeof line === 'string');
  return lines.length > 0 ? lines : undefined;
}

const STALE_PROGRESS_SECONDS = 60;
const TOOL_MARKER = /⚡\s*\[([^\]\s]+)\]/;

interface ProgressContext {
  liveTail: string[];
  now: number;
  loopAlive?: boolean;
  bashWriter: boolean;
}

function readProgress(obj: JsonObject | undefined, ctx: ProgressContext): AgentProgressView | undefined {
  if (!obj) return undefined;
  const status = str(obj.status);
  if (!status) return undefined;
  let lastTool = str(obj.last_tool);
  if (!lastTool && status === 'executing') {
    for (let i = ctx.liveTail.length - 1; i >= 0 && !lastTool; i--) lastTool = TOOL_MARKER.exec(ctx.liveTail[i] ?? '')?.[1];
  }
  const stamp = parseLocalStamp(str(obj.timestamp));
  const since = stamp === undefined ? undefined : Math.floor((ctx.now - stamp) / 1000);
  // The Bash tool rewrites an `executing` progress.json every 10 s, so a minute of silence
  // means its loop died or hangs. Ours writes on agent output, which a long tool run pauses,
  // so its liveness comes from the pid instead.
  const overdue = since !== undefined && since > STALE_PROGRESS_SECONDS;
  const stale = status === 'executing' && (ctx.bashWriter ? overdue : ctx.loopAlive === false);
  const elapsed = int(obj.elapsed_seconds);
  const moving = since !== undefined && since >= 0 && !stale && (ctx.loopAlive === true || !overdue);
  return {
    status,
    indicator: str(obj.indicator),
    workingSeconds: elapsed === undefined ? undefined : elapsed + (moving ? since : 0),
    staleSeconds: stale && since !== undefined && since > 0 ? since : undefined,
    lastOutput: str(obj.last_output),
    lastTool,
    filesChanged: int(obj.files_changed),
    error: str(obj.error),
  };
}

function readBreaker(obj: JsonObject | undefined): BreakerView | undefined {
  const state = str(obj?.state);
  if (!obj || !state) return undefined;
  return {
    state,
    reason: str(obj.reason),
    consecutiveNoProgress: int(obj.consecutive_no_progress),
    consecutiveSameError: int(obj.consecutive_same_error),
    consecutivePermissionDenials: int(obj.consecutive_permission_denials),
    lastProgressLoop: int(obj.last_progress_loop),
    totalOpens: int(obj.total_opens),
    currentLoop: int(obj.current_loop),
  };
}

function readAnalysis(obj: JsonObject | undefined): AnalysisView | undefined {
  if (!obj) return undefined;
  const a = isJsonObject(obj.analysis) ? obj.analysis : obj;
  return {
    loopNumber: int(obj.loop_number),
    exitSignal: bool(a.exit_signal),
    filesModified: int(a.files_modified),
    confidence: int(a.confidence_score),
    workSummary: str(a.work_summary),
    permissionDenials: int(a.permission_denial_count),
    askingQuestions: bool(a.asking_questions),
  };
}

function readUsageWait(text: string | undefined, now: number, settings: UsageLimitWaitSettings, warnings: string[]): UsageWaitView | undefined {
  if (text === undefined) return undefined;
  // The loop's reader: a file that fails the schema is no wait (the loop sets it aside).
  const parsed = parseStateText(text, usageWaitFileSchema, {});
  if (parsed.status === 'missing') return undefined;
  if (parsed.status === 'corrupt') {
    warnings.push(`.usage_limit_wait is unreadable (${parsed.problem}); ignored`);
    return undefined;
  }
  const wait: UsageWaitFile = parsed.value;
  // The same range rule as the loop's reader: a wait longer than ralph would choose is not one.
  const problem = usageWaitProblem(wait, now, longestUsageLimitWaitMs(settings));
  if (problem) {
    warnings.push(`.usage_limit_wait: resume_at ${problem}; ignored`);
    return undefined;
  }
  return { resumeAt: wait.resume_at_ms, reason: wait.reason, source: wait.source };
}

// Ours also records the reset time in status.json while waiting; the dedicated file wins.
function readStatusUsageWait(obj: JsonObject | undefined, now: number): UsageWaitView | undefined {
  const resumeAt = Date.parse(str(obj?.usage_limit_resets_at) ?? '');
  if (!Number.isFinite(resumeAt) || resumeAt <= now) return undefined;
  return { resumeAt, reason: 'usage limit reached' };
}

function readPlan(text: string, optionalSections: string[], name: string, warnings: string[]): PlanProgress {
  // Done and total count the blocking items only, as the exit gate and the gap do.
  const { blocking, optional, unclosedFenceLine } = parseFixPlan(text, optionalSections);
  if (unclosedFenceLine !== null) {
    warnings.push(`${name} line ${unclosedFenceLine} opens a code fence that is never closed; its items count as blocking`);
  }
  return { done: blocking.done, total: blocking.done + blocking.open, optionalOpen: optional.open, optionalDone: optional.done };
}

/**
 * A JSON state file through the loop's parser, lenient: the Bash tool hand-builds status.json and
 * progress.json with unescaped strings, so salvaged fields are normal and not worth a warning. A
 * file that fails its schema still shows its well-typed fields.
 */
function readStateText(name: string, text: string, schema: z.ZodType, warnings: string[]): JsonObject | undefined {
  const parsed = parseStateText(text, schema, { lenient: true });
  switch (parsed.status) {
    case 'missing':
      warnings.push(`${name} is empty`);
      return undefined;
    case 'ok':
    case 'recovered':
      return isJsonObject(parsed.value) ? parsed.value : undefined;
    case 'corrupt':
      if (!parsed.found) {
        warnings.push(`${name} is corrupt (not a JSON object); ignored`);
        return undefined;
      }
      warnings.push(`${name} has an unexpected value (${parsed.problem}); showing what could be read`);
      return parsed.found;
  }
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readQueue(obj: JsonObject | undefined): QueueView | undefined {
  const items = Array.isArray(obj?.queue) ? obj.queue.filter(isJsonObject) : [];
  if (items.length === 0) return undefined;
  const count = (s: string) => items.filter((item) => item.status === s).length;
  const active = items.find((item) => item.status === 'processing');
  const ref = active ? (int(active.issue_number) !== undefined ? `#${active.issue_number}` : str(active.id)) : undefined;
  return {
    total: items.length,
    completed: count('completed'),
    pending: count('pending'),
    processing: count('processing'),
    failed: count('failed'),
    current: active ? [ref, str(active.title)].filter(Boolean).join(' ') : undefined,
  };
}

function readUnits(obj: JsonObject | undefined): UnitView[] | undefined {
  const units = Array.isArray(obj?.units) ? obj.units.filter(isJsonObject) : [];
  if (units.length === 0) return undefined;
  return units.map((u) => ({
    slug: str(u.slug) ?? '?',
    state: str(u.state) ?? '?',
    loops: int(u.loops) ?? 0,
    costUsd: typeof u.cost_usd === 'number' ? u.cost_usd : 0,
    worktree: str(u.worktree) ?? '',
    reason: str(u.exit_reason) ?? '',
    ...(str(u.pr_url) ? { prUrl: str(u.pr_url) } : {}),
  }));
}

function readIssueLifecycle(obj: JsonObject | undefined): IssueLifecycleView | undefined {
  const issue = isJsonObject(obj?.issue) ? obj.issue : undefined;
  const number = int(issue?.number);
  if (number === undefined || number < 1) return undefined;
  const lifecycle = isJsonObject(obj?.lifecycle) ? obj.lifecycle : {};
  return {
    number,
    repo: str(issue?.repo) || undefined,
    title: str(issue?.title) || undefined,
    commentsPosted: int(lifecycle.progress_comments_posted) ?? 0,
    prUrl: str(lifecycle.pr_url) || undefined,
    closed: bool(lifecycle.issue_closed) ?? false,
    followups: Array.isArray(lifecycle.followups_created) ? lifecycle.followups_created.length : 0,
  };
}

function readCounter(text: string | undefined, name: string, max: number, warnings: string[]): number | undefined {
  const value = text === undefined ? undefined : parseIntegerText(text);
  if (value === undefined) return undefined;
  const problem = Number.isNaN(value) ? 'not an integer' : countProblem(value, max);
  if (!problem) return value;
  warnings.push(`${name} is corrupt (${problem}); ignored`);
  return undefined;
}

function tailLines(text: string | undefined, max: number): string[] {
  if (!text) return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.slice(-max);
}

function isoTime(value: unknown): number | undefined {
  const ms = Date.parse(str(value) ?? '');
  return Number.isFinite(ms) ? ms : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

function int(value: unknown): number | undefined {
  const n = num(value);
  return n === undefined ? undefined : Math.trunc(n);
}

function bool(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}
