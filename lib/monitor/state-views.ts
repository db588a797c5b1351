// What the dashboard shows of each JSON state file, from its fields (state-fields.ts). A field
// takes the default the loop's schema gives it (lib/state/schemas.ts and the rooms' own state
// files), so a file shows as the loop reads it.

import type { AgentProgressView, AnalysisView, BreakerView, IssueLifecycleView, LoopStatusView, QueueView, UnitView } from './snapshot.js';
import { parseLocalStamp } from './time-format.js';
import type { StateFields } from './state-fields.js';

/** status.json's `run_alerts`: the newest this many (as the loop keeps them). */
const MAX_RUN_ALERTS = 5;
const BREAKER_STATES = ['CLOSED', 'HALF_OPEN', 'OPEN'] as const;
const AGENT_NAME = /^[a-z][a-z0-9-]{0,30}$/;

export function readStatus(f: StateFields | undefined): LoopStatusView | undefined {
  if (!f) return undefined;
  const agent = f.str('agent');
  return {
    // The loops run, as every view counts them; a status.json of the Bash tool has only its loop number.
    loopCount: f.int('loops_run') ?? f.int('loop_count', 0),
    // A name, never text to render: the agent can write status.json.
    agent: agent !== undefined && AGENT_NAME.test(agent) ? agent : undefined,
    status: f.str('status', ''),
    lastAction: f.str('last_action', ''),
    exitReason: f.str('exit_reason', ''),
    timestamp: f.str('timestamp', ''),
    callsThisHour: f.int('calls_made_this_hour', 0),
    maxCallsPerHour: f.int('max_calls_per_hour', 100),
    tokensThisHour: f.int('tokens_used_this_hour', 0),
    maxTokensPerHour: f.int('max_tokens_per_hour', 0),
    sandbox: readSandbox(f.object('sandbox')),
    costUsdRun: f.num('run_cost_usd') ?? f.num('cost_usd_run'),
    unknownCostCalls: f.int('run_unknown_cost_calls'),
    maxCostUsd: f.num('max_cost_usd'),
    tokensRun: f.int('run_tokens') ?? f.int('tokens_run'),
    maxLoops: f.int('max_loops'),
    startedAt: isoTime(f.str('started_at')),
    updatedAt: isoTime(f.str('timestamp')),
    alerts: f.strings('run_alerts')?.slice(-MAX_RUN_ALERTS),
    planNote: f.str('plan_note'),
    runSummary: nonEmpty(f.object('run_summary')?.strings('lines')),
  };
}

function readSandbox(f: StateFields | undefined): LoopStatusView['sandbox'] {
  const provider = f?.str('provider', 'none') ?? 'none';
  if (!f || provider === 'none' || provider === 'null') return undefined;
  // A cost written as a number is shown to four places; one written as text, as it is.
  const cost = f.value('estimated_cost');
  const estimatedCost = typeof cost === 'number' ? f.num('estimated_cost')?.toFixed(4) : f.str('estimated_cost');
  return { provider, id: f.str('sandbox_id') ?? f.str('container_id'), status: f.str('status'), estimatedCost };
}

const STALE_PROGRESS_SECONDS = 60;
const TOOL_MARKER = /⚡\s*\[([^\]\s]+)\]/;

export interface ProgressContext {
  liveTail: string[];
  now: number;
  loopAlive?: boolean;
  bashWriter: boolean;
}

export function readProgress(f: StateFields | undefined, ctx: ProgressContext): AgentProgressView | undefined {
  const status = f?.str('status', '');
  if (!f || !status) return undefined;
  let lastTool = f.str('last_tool');
  if (!lastTool && status === 'executing') {
    for (let i = ctx.liveTail.length - 1; i >= 0 && !lastTool; i--) lastTool = TOOL_MARKER.exec(ctx.liveTail[i] ?? '')?.[1];
  }
  const stamp = parseLocalStamp(f.str('timestamp', ''));
  const since = stamp === undefined ? undefined : Math.floor((ctx.now - stamp) / 1000);
  // The Bash tool rewrites an `executing` progress.json every 10 s, so a minute of silence
  // means its loop died or hangs. Ours writes on agent output, which a long tool run pauses,
  // so its liveness comes from the pid instead.
  const overdue = since !== undefined && since > STALE_PROGRESS_SECONDS;
  const stale = status === 'executing' && (ctx.bashWriter ? overdue : ctx.loopAlive === false);
  const elapsed = f.int('elapsed_seconds');
  const moving = since !== undefined && since >= 0 && !stale && (ctx.loopAlive === true || !overdue);
  return {
    status,
    indicator: f.str('indicator'),
    workingSeconds: elapsed === undefined ? undefined : elapsed + (moving ? since : 0),
    staleSeconds: stale && since !== undefined && since > 0 ? since : undefined,
    lastOutput: f.str('last_output'),
    lastTool,
    filesChanged: f.int('files_changed'),
    error: f.str('error'),
  };
}

export function readBreaker(f: StateFields | undefined): BreakerView | undefined {
  const state = f?.oneOf('state', BREAKER_STATES, 'CLOSED');
  if (!f || !state) return undefined;
  return {
    state,
    reason: f.str('reason', ''),
    consecutiveNoProgress: f.int('consecutive_no_progress', 0),
    consecutiveSameError: f.int('consecutive_same_error', 0),
    consecutivePermissionDenials: f.int('consecutive_permission_denials', 0),
    lastProgressLoop: f.int('last_progress_loop', 0),
    totalOpens: f.int('total_opens', 0),
    currentLoop: f.int('current_loop', 0),
  };
}

export function readAnalysis(f: StateFields | undefined): AnalysisView | undefined {
  if (!f) return undefined;
  // Ours and the Bash tool's nest the analysis; a flat file holds its fields at the top.
  const a = f.has('analysis') ? (f.object('analysis') ?? f) : f;
  return {
    loopNumber: f.int('loop_number', 0),
    exitSignal: a.bool('exit_signal', false),
    filesModified: a.int('files_modified', 0),
    confidence: a.int('confidence_score', 0),
    workSummary: a.str('work_summary', ''),
    permissionDenials: a.int('permission_denial_count', 0),
    askingQuestions: a.bool('asking_questions', false),
  };
}

export function readQueue(f: StateFields | undefined): QueueView | undefined {
  const items = f?.objects('queue') ?? [];
  if (items.length === 0) return undefined;
  const statuses = items.map((item) => item.str('status'));
  const count = (s: string) => statuses.filter((status) => status === s).length;
  const active = items[statuses.indexOf('processing')];
  const issue = active?.int('issue_number');
  const ref = active ? (issue !== undefined ? `#${issue}` : active.str('id')) : undefined;
  return {
    total: items.length,
    completed: count('completed'),
    pending: count('pending'),
    processing: count('processing'),
    failed: count('failed'),
    current: active ? [ref, active.str('title', '')].filter(Boolean).join(' ') : undefined,
  };
}

export function readUnits(f: StateFields | undefined): UnitView[] | undefined {
  const units = f?.objects('units') ?? [];
  if (units.length === 0) return undefined;
  return units.map((u) => {
    const prUrl = u.str('pr_url');
    return {
      slug: u.str('slug') ?? '?',
      state: u.str('state') ?? '?',
      loops: u.int('loops', 0) ?? 0,
      costUsd: u.num('cost_usd', 0) ?? 0,
      worktree: u.str('worktree') ?? '',
      reason: u.str('exit_reason', '') ?? '',
      ...(prUrl ? { prUrl } : {}),
    };
  });
}

export function readIssueLifecycle(f: StateFields | undefined): IssueLifecycleView | undefined {
  const issue = f?.object('issue');
  const number = issue?.int('number', 0);
  if (!f || number === undefined || number < 1) return undefined;
  const lifecycle = f.object('lifecycle');
  return {
    number,
    repo: issue?.str('repo') || undefined,
    title: issue?.str('title') || undefined,
    commentsPosted: lifecycle?.int('progress_comments_posted', 0) ?? 0,
    prUrl: lifecycle?.str('pr_url') || undefined,
    closed: lifecycle?.bool('issue_closed', false) ?? false,
    followups: lifecycle?.strings('followups_created')?.length ?? 0,
  };
}

function nonEmpty(lines: string[] | undefined): string[] | undefined {
  return lines && lines.length > 0 ? lines : undefined;
}

function isoTime(value: string | undefined): number | undefined {
  const ms = Date.parse(value ?? '');
  return Number.isFinite(ms) ? ms : undefined;
}
