// What the web view shows, as one JSON document built from the same readers as the terminal
// monitor (the dashboard snapshot, the run record's summary) plus the plan's items and the
// timeline of loops from metrics.jsonl. Every string that came from a state file, the plan or
// the agent's live output passes the terminal-text sanitizer here; the page then only ever sets
// it as text, so nothing the agent wrote is interpreted as markup. The plan and metrics.jsonl
// are read as the monitor reads its files (openViewFile): `ralph --web` serves from the loop's
// own process, and a FIFO the agent puts there must not stop the loop. Each look does the work of
// what changed since the last: only the files the page shows are looked at, metrics.jsonl is read
// from where the last look ended (web-timeline.ts), and the plan is parsed again, and checked
// against the plan's memory, only when its text or that memory changed.

import { basename } from 'node:path';
import type { ViewConfig } from '../config/view-config.js';
import type { DashboardSnapshot, StateTexts } from '../monitor/snapshot.js';
import { createSnapshotLoader, viewFileStamp } from '../monitor/snapshot-loader.js';
import { parseFixPlan } from '../plan/fix-plan.js';
import { heldOpenItems } from '../plan/plan-store.js';
import { silentLogger } from '../platform/logger.js';
import type { RunStatusSummary } from '../run-record/status-summary.js';
import { planMemoryPath } from '../state/ledger-path.js';
import { planMemoryLogPath } from '../state/plan-memory-file.js';
import { sanitizeLine, stripTerminalControls } from '../text/terminal-text.js';
import { createTimelineReader, type TimelineLoop } from './web-timeline.js';

export { parseTimeline, TIMELINE_LOOPS, type TimelineLoop } from './web-timeline.js';

/** Plan items sent to the page; a longer plan is cut, and says so. */
export const PLAN_ITEMS = 500;
const LIVE_LINES = 120;
/**
 * The state files the page shows something of: the others (ralph.log, the last analysis, the run
 * and issue ids, the hour's start) are not looked at, so their changes cost the view nothing.
 */
const SHOWN_FILES: ReadonlyArray<keyof StateTexts> = [
  'status',
  'progress',
  'breaker',
  'callCount',
  'tokenCount',
  'fixPlan',
  'usageWait',
  'queue',
  'parallel',
  'liveLogTail',
];

export interface WebPlanItem {
  text: string;
  done: boolean;
  optional: boolean;
  section?: string;
}

export interface WebState {
  project: string;
  takenAt: number;
  ralphDirFound: boolean;
  loop: {
    count?: number;
    status?: string;
    lastAction?: string;
    exitReason?: string;
    agent?: string;
    gone: boolean;
    startedAt?: number;
    /** The last loop that ran (status.json's loop_count counts one more once a run has stopped). */
    lastRun?: number;
  };
  agent?: { status: string; workingSeconds?: number; lastTool?: string; lastOutput?: string; filesChanged?: number; error?: string };
  plan?: {
    file: string;
    done: number;
    total: number;
    optionalOpen: number;
    items: WebPlanItem[];
    cut: boolean;
    note?: string;
    /** Items ralph counts as open whatever the plan shows (ticked with no measured change, removed, moved), and why. */
    heldOpen: Array<{ text: string; how: string }>;
  };
  live: string[];
  timeline: TimelineLoop[];
  breaker?: { state: string; reason?: string; noProgress?: number; sameError?: number; permissionDenials?: number };
  limits: {
    callsThisHour?: number;
    maxCallsPerHour?: number;
    tokensThisHour?: number;
    maxTokensPerHour?: number;
    costUsd?: number;
    maxCostUsd?: number;
    unknownCostCalls?: number;
    loops?: number;
    maxLoops?: number;
    /** At the run's cost per loop so far, how many more loops the budget pays for. */
    loopsLeftInBudget?: number;
    usageWaitUntil?: number;
  };
  gate?: { loop: number; status: string; passed: number; failed: number; skipped: number; failing: string[] };
  run?: { status: string; attempts: number; gap: string };
  units: Array<{ slug: string; state: string; loops: number; costUsd: number; reason: string; prUrl?: string }>;
  queue?: { total: number; completed: number; pending: number; processing: number; failed: number; current?: string };
  /** The closing summary of the run that ended, one line each. */
  summary?: string[];
  alerts: string[];
  warnings: string[];
}

export interface WebStateSource {
  /** The state now, and whether anything changed since the previous call. */
  load(): Promise<{ state: WebState; changed: boolean }>;
}

export function createWebStateSource(options: { projectDir: string; view: ViewConfig; now: () => number }): WebStateSource {
  const loader = createSnapshotLoader({ ...options, shown: SHOWN_FILES });
  const timelineReader = createTimelineReader(options.view.paths.metrics, options.projectDir);
  // The plan's memory beside the ledger: the items it holds open change with it (or the plan).
  const memoryFile = options.view.paths.ledger ? planMemoryPath(options.view.paths.ledger) : undefined;
  const memoryStamp = () => (memoryFile ? `${viewFileStamp(memoryFile)}|${viewFileStamp(planMemoryLogPath(memoryFile))}` : '');
  let planInputs: { text: string | undefined; memory: string } | undefined;
  let last: WebState | undefined;
  return {
    async load() {
      const { snapshot, changed: snapshotChanged, runSummary, planText } = await loader.load();
      const timeline = timelineReader.read();
      const timelineChanged = timeline !== last?.timeline;
      const memory = memoryStamp();
      const planChanged = !planInputs || planInputs.text !== planText || planInputs.memory !== memory;
      if (!last || snapshotChanged || timelineChanged || planChanged) {
        planInputs = { text: planText, memory };
        // The plan and the run record as the snapshot read them: each file is read once a change.
        last = buildWebState(snapshot, {
          plan: planChanged || !last ? planOf(planText ?? null, snapshot, options.view.optionalSections, heldOpen(options.view)) : last.plan,
          timeline,
          run: runSummary,
        });
        return { state: last, changed: true };
      }
      return { state: last, changed: false };
    },
  };
}

/** The JSON document from what was read. Pure. */
export function buildWebState(
  snapshot: DashboardSnapshot,
  extra: { plan: WebState['plan']; timeline: TimelineLoop[]; run: RunStatusSummary | null },
): WebState {
  const status = snapshot.status;
  const clean = (text: string | undefined) => (text === undefined ? undefined : sanitizeLine(text));
  const costUsd = status?.costUsdRun;
  const loops = status?.loopCount;
  return {
    project: clean(basename(snapshot.projectDir))!,
    takenAt: snapshot.takenAt,
    ralphDirFound: snapshot.ralphDirFound,
    loop: {
      count: loops,
      status: clean(status?.status),
      lastAction: clean(status?.lastAction),
      exitReason: clean(status?.exitReason),
      agent: clean(status?.agent),
      gone: snapshot.loopGone === true,
      startedAt: status?.startedAt,
      lastRun: extra.timeline.at(-1)?.loop,
    },
    agent: snapshot.progress
      ? {
          status: sanitizeLine(snapshot.progress.status),
          workingSeconds: snapshot.progress.workingSeconds,
          lastTool: clean(snapshot.progress.lastTool),
          lastOutput: clean(snapshot.progress.lastOutput),
          filesChanged: snapshot.progress.filesChanged,
          error: clean(snapshot.progress.error),
        }
      : undefined,
    plan: extra.plan ? { ...extra.plan, note: clean(status?.planNote) } : undefined,
    live: snapshot.liveTail.slice(-LIVE_LINES).map((line) => stripTerminalControls(line.replace(/\r/g, ''))),
    timeline: extra.timeline,
    breaker: snapshot.breaker
      ? {
          state: sanitizeLine(snapshot.breaker.state),
          reason: clean(snapshot.breaker.reason),
          noProgress: snapshot.breaker.consecutiveNoProgress,
          sameError: snapshot.breaker.consecutiveSameError,
          permissionDenials: snapshot.breaker.consecutivePermissionDenials,
        }
      : undefined,
    limits: {
      callsThisHour: status?.callsThisHour ?? snapshot.rate.calls,
      maxCallsPerHour: status?.maxCallsPerHour,
      tokensThisHour: status?.tokensThisHour ?? snapshot.rate.tokens,
      maxTokensPerHour: status?.maxTokensPerHour,
      costUsd,
      maxCostUsd: status?.maxCostUsd,
      unknownCostCalls: status?.unknownCostCalls,
      loops,
      maxLoops: status?.maxLoops,
      loopsLeftInBudget: loopsLeftInBudget(costUsd, status?.maxCostUsd, extra.timeline),
      usageWaitUntil: snapshot.usageWait?.resumeAt,
    },
    gate: extra.run?.last_verification
      ? {
          ...extra.run.last_verification,
          status: sanitizeLine(extra.run.last_verification.status),
          failing: extra.run.last_verification.failing.map(sanitizeLine),
        }
      : undefined,
    run: extra.run ? { status: sanitizeLine(extra.run.status), attempts: extra.run.attempts, gap: sanitizeLine(extra.run.gap_text) } : undefined,
    units: (snapshot.units ?? []).map((u) => ({
      slug: sanitizeLine(u.slug),
      state: sanitizeLine(u.state),
      loops: u.loops,
      costUsd: u.costUsd,
      reason: sanitizeLine(u.reason),
      // A link in the page: an http(s) URL only.
      ...(u.prUrl && /^https?:\/\/\S+$/.test(u.prUrl) ? { prUrl: sanitizeLine(u.prUrl) } : {}),
    })),
    queue: snapshot.queue ? { ...snapshot.queue, current: clean(snapshot.queue.current) } : undefined,
    ...(status?.runSummary ? { summary: status.runSummary.map(sanitizeLine) } : {}),
    alerts: (status?.alerts ?? []).map(sanitizeLine),
    warnings: snapshot.warnings.map(sanitizeLine),
  };
}

/**
 * Loops the remaining budget pays for at the average cost of the loops that reported one; none
 * without a budget or a cost seen.
 */
export function loopsLeftInBudget(costUsd: number | undefined, maxCostUsd: number | undefined, timeline: readonly TimelineLoop[]): number | undefined {
  if (!maxCostUsd || maxCostUsd <= 0 || costUsd === undefined) return undefined;
  const costed = timeline.filter((loop) => loop.costUsd !== undefined && loop.costUsd > 0);
  if (costed.length === 0) return undefined;
  const perLoop = costed.reduce((sum, loop) => sum + loop.costUsd!, 0) / costed.length;
  return Math.max(0, Math.floor((maxCostUsd - costUsd) / perLoop));
}

/** The items ralph's plan memory (beside its ledger) holds open against what the plan shows. */
function heldOpen(view: ViewConfig): Array<{ text: string; how: string }> {
  try {
    return heldOpenItems(view.paths, view.optionalSections, silentLogger).held.map((item) => ({ text: sanitizeLine(item.text), how: item.how }));
  } catch {
    return [];
  }
}

function planOf(
  text: string | null,
  snapshot: DashboardSnapshot,
  optionalSections: string[],
  held: Array<{ text: string; how: string }> = [],
): WebState['plan'] {
  if (text === null) return undefined;
  const view = parseFixPlan(text, optionalSections);
  const items = view.items.slice(0, PLAN_ITEMS).map((item) => ({
    text: sanitizeLine(item.text.trim()),
    done: item.done,
    optional: item.optional,
    ...(item.section ? { section: sanitizeLine(item.section) } : {}),
  }));
  return {
    file: snapshot.planFile ?? 'fix_plan.md',
    done: view.blocking.done,
    total: view.blocking.done + view.blocking.open,
    optionalOpen: view.optional.open,
    items,
    cut: view.items.length > items.length,
    heldOpen: held,
  };
}
