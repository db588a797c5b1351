// Builds a DashboardSnapshot from the texts of the state files, ours or the Bash tool's. Pure:
// a missing or corrupt file becomes a warning line and an absent section, never an exception.
// Each text is parsed by the loop's own JSON reader (lib/state/state-file.ts, which salvages the
// Bash tool's hand-built files) and its fields are read as the loop's schemas read them
// (state-fields.ts, state-views.ts), without loading zod.

import { parseFixPlan } from '../plan/fix-plan.js';
import { countProblem, MAX_CALLS_IN_WINDOW, MAX_TOKENS_IN_WINDOW, usageWaitProblem } from '../breaker/guard-ranges.js';
import { longestUsageLimitWaitMs, type UsageLimitWaitSettings } from '../limits/reset-time.js';
import { parseIntegerText } from '../state/integer-file.js';
import type { UsageWaitFile } from '../state/schemas.js';
import { parseStateText, type StateTextCheck } from '../state/state-file.js';
import type { DashboardSnapshot, PlanProgress, StateTexts, UsageWaitView } from './snapshot.js';
import { isJsonObject, readStateFields, type JsonObject, type StateFields } from './state-fields.js';
import { readAnalysis, readBreaker, readIssueLifecycle, readProgress, readQueue, readStatus, readUnits } from './state-views.js';
import { isOfCurrentRun } from './run-facts.js';

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
  const fields = (name: string, text: string | undefined): StateFields | undefined => {
    const obj = text === undefined ? undefined : memoized(options.memo, name, text, warnings, (w) => readStateText(name, text, w));
    return obj && readStateFields(name, obj, warnings);
  };

  // A missing status.json (or .ralph/) is shown by the Loop section itself, in red.
  const liveTail = tailLines(texts.liveLogTail, 200);
  const status = fields('status.json', texts.status);
  const pid = status?.int('pid');
  // Ours records its pid; the Bash tool does not, but rewrites progress.json every 10 s.
  const loopAlive = pid === undefined ? undefined : options.isProcessAlive?.(pid);
  const loopGone = loopAlive === false && ACTIVE_STATUSES.has(status?.str('status') ?? '');
  if (loopGone) warnings.push(`the loop (pid ${pid}) is no longer running; the state shown is from when it stopped`);
  const currentRunId = fields('.run_state', texts.runState)?.str('run_id');
  const lifecycle = fields('.github_lifecycle_state', texts.githubLifecycle);
  return {
    projectDir: options.projectDir,
    takenAt: options.now,
    ralphDirFound: options.ralphDirFound,
    ...(loopGone ? { loopGone } : {}),
    status: readStatus(status),
    progress: readProgress(fields('progress.json', texts.progress), { liveTail, now: options.now, loopAlive, bashWriter: pid === undefined }),
    breaker: readBreaker(fields('.circuit_breaker_state', texts.breaker)),
    rate: {
      calls: readCounter(texts.callCount, '.call_count', MAX_CALLS_IN_WINDOW, warnings),
      tokens: readCounter(texts.tokenCount, '.token_count', MAX_TOKENS_IN_WINDOW, warnings),
      hourKey: texts.lastReset?.trim() || undefined,
    },
    analysis: readAnalysis(fields('.response_analysis', texts.analysis)),
    plan:
      texts.fixPlan === undefined
        ? undefined
        : memoized(options.memo, 'fix_plan.md', texts.fixPlan, warnings, (w) => readPlan(texts.fixPlan!, options.optionalSections, options.planFile, w)),
    planFile: options.planFile,
    usageWait: readUsageWait(texts.usageWait, options.now, options.usageWait, warnings) ?? readStatusUsageWait(status, options.now),
    queue: readQueue(fields('queue.json', texts.queue)),
    units: readUnits(fields('parallel.json', texts.parallel)),
    // An earlier run's issue is not this run's: not shown.
    issue: isOfCurrentRun(lifecycle?.str('run_id'), currentRunId) ? readIssueLifecycle(lifecycle) : undefined,
    ...(currentRunId ? { currentRunId } : {}),
    ralphLogTail: tailLines(texts.ralphLogTail, 200),
    liveTail,
    warnings,
  };
}

/** Any JSON object: the fields are checked as they are read (state-fields.ts). */
const JSON_OBJECT: StateTextCheck<JsonObject> = {
  safeParse: (value) =>
    isJsonObject(value) ? { success: true, data: value } : { success: false, error: { issues: [{ path: [], message: 'expected an object' }] } },
};

/**
 * A JSON state file through the loop's parser, lenient: the Bash tool hand-builds status.json and
 * progress.json with unescaped strings, so salvaged fields are normal and not worth a warning.
 */
function readStateText(name: string, text: string, warnings: string[]): JsonObject | undefined {
  const parsed = parseStateText(text, JSON_OBJECT, { lenient: true });
  switch (parsed.status) {
    case 'missing':
      warnings.push(`${name} is empty`);
      return undefined;
    case 'ok':
    case 'recovered':
      return parsed.value;
    case 'corrupt':
      warnings.push(`${name} is corrupt (not a JSON object); ignored`);
      return undefined;
  }
}

function readUsageWait(text: string | undefined, now: number, settings: UsageLimitWaitSettings, warnings: string[]): UsageWaitView | undefined {
  if (text === undefined) return undefined;
  // The loop's rule: a file that is not a wait is no wait (the loop sets it aside).
  const parsed = parseStateText(text, USAGE_WAIT, {});
  if (parsed.status === 'missing') return undefined;
  if (parsed.status === 'corrupt') {
    warnings.push(`.usage_limit_wait is unreadable (${parsed.problem}); ignored`);
    return undefined;
  }
  const wait = parsed.value;
  // The same range rule as the loop's reader: a wait longer than ralph would choose is not one.
  const problem = usageWaitProblem(wait, now, longestUsageLimitWaitMs(settings));
  if (problem) {
    warnings.push(`.usage_limit_wait: resume_at ${problem}; ignored`);
    return undefined;
  }
  return { resumeAt: wait.resume_at_ms, reason: wait.reason, source: wait.source };
}

/** .usage_limit_wait as the loop's schema takes it: both times required, exactly typed; the texts default. */
const USAGE_WAIT: StateTextCheck<UsageWaitFile> = {
  safeParse(value) {
    const fail = (path: string, message: string) => ({ success: false as const, error: { issues: [{ path: path ? [path] : [], message }] } });
    if (!isJsonObject(value)) return fail('', 'expected an object');
    if (typeof value.resume_at !== 'string') return fail('resume_at', 'expected text');
    if (typeof value.resume_at_ms !== 'number' || !Number.isFinite(value.resume_at_ms)) return fail('resume_at_ms', 'expected a number');
    const texts: Record<string, string> = { reason: '', source: 'fallback', detected_at: '' };
    for (const [key, fallback] of Object.entries(texts)) {
      if (value[key] === undefined) texts[key] = fallback;
      else if (typeof value[key] === 'string') texts[key] = value[key];
      else return fail(key, 'expected text');
    }
    return {
      success: true,
      data: {
        ...value,
        resume_at: value.resume_at,
        resume_at_ms: value.resume_at_ms,
        reason: texts.reason!,
        source: texts.source!,
        detected_at: texts.detected_at!,
      },
    };
  },
};

// Ours also records the reset time in status.json while waiting; the dedicated file wins.
function readStatusUsageWait(status: StateFields | undefined, now: number): UsageWaitView | undefined {
  const resumeAt = Date.parse(status?.str('usage_limit_resets_at') ?? '');
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
