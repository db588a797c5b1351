// Loads a DashboardSnapshot from a project's `.ralph/` directory, read-only. Kept cheap for a
// dashboard that wakes every couple of seconds: each file is stat()ed, and only one whose
// inode, size, modification or change time changed is read again; logs are read from their
// last few KB only.
// The agent can write these files: each is opened without blocking and read only when it is a
// regular file inside the project, so a FIFO planted in its place is a warning, not a dashboard
// that hangs, and a link out of the project is a warning, not another file's text on the screen
// (the loop reads none of them through such a link either).

import { closeSync, constants, fstatSync, openSync, statSync, type Stats } from 'node:fs';
import { basename, join } from 'node:path';
import type { ViewConfig } from '../config/view-config.js';
import { movedControlFiles } from '../state/paths.js';
import { openedOutsideProject, projectBoundary, readTail } from '../state/control-file.js';
import { isProcessAlive } from '../state/process-alive.js';
import { assembleSnapshot, type ParseMemo } from './assemble-snapshot.js';
import { listRunRecordFilesUpTo } from '../run-record/record-files.js';
import { readRunSummaryForStatus, type RunStatusSummary } from '../run-record/status-summary.js';
import type { DashboardSnapshot, RunView, StateTexts } from './snapshot.js';
import { isOfCurrentRun } from './run-facts.js';

export interface SnapshotLoaderOptions {
  projectDir: string;
  now: () => number;
  /** The project's effective settings (FIX_PLAN_FILE, OPTIONAL_SECTIONS, the usage-limit wait), as the loop has them. */
  view: ViewConfig;
  /**
   * The state files the view shows (all by default): the others are neither looked at nor read,
   * so a change to one of them (ralph.log, written many times a loop) is no change of the view.
   */
  shown?: ReadonlyArray<keyof StateTexts>;
}

export interface SnapshotLoadResult {
  snapshot: DashboardSnapshot;
  /** Some file appeared, disappeared or changed since the previous load. */
  changed: boolean;
  /** The newest run record's summary as read for the snapshot (null: none). */
  runSummary: RunStatusSummary | null;
  /** The plan's text as read for the snapshot (undefined: absent or unreadable). */
  planText: string | undefined;
}

export interface SnapshotLoader {
  load(): Promise<SnapshotLoadResult>;
}

interface FileSpec {
  key: keyof StateTexts;
  path: string;
  /** Read only the last `tailBytes` bytes (logs). */
  tailBytes?: number;
}

interface CachedFile {
  stamp: string;
  text?: string;
  warning?: string;
}

const TAIL_BYTES = 8 * 1024;
// State files are small; anything bigger than this is not one we wrote.
const MAX_WHOLE_BYTES = 4 * 1024 * 1024;
/** Entries of `.ralph/sessions/` a look lists at most (a run leaves three there). */
export const MAX_SESSION_ENTRIES = 10_000;

export function createSnapshotLoader(options: SnapshotLoaderOptions): SnapshotLoader {
  const { view } = options;
  const { paths } = view;
  const all: FileSpec[] = [
    { key: 'status', path: paths.status },
    { key: 'progress', path: paths.progress },
    { key: 'breaker', path: paths.circuitBreakerState },
    { key: 'callCount', path: paths.callCount },
    { key: 'tokenCount', path: paths.tokenCount },
    { key: 'lastReset', path: paths.lastReset },
    { key: 'analysis', path: paths.responseAnalysis },
    { key: 'fixPlan', path: paths.fixPlan },
    { key: 'usageWait', path: paths.usageLimitWait },
    { key: 'queue', path: join(paths.ralphDir, 'queue.json') },
    { key: 'parallel', path: join(paths.ralphDir, 'parallel.json') },
    { key: 'githubLifecycle', path: paths.githubLifecycleState },
    { key: 'runState', path: paths.runState },
    { key: 'ralphLogTail', path: paths.ralphLog, tailBytes: TAIL_BYTES },
    { key: 'liveLogTail', path: paths.liveLog, tailBytes: TAIL_BYTES },
  ];
  const files = options.shown ? all.filter((spec) => options.shown!.includes(spec.key)) : all;
  // The settings' plan file, named once: working it out builds every path of `.ralph/` again.
  const planFile = movedControlFiles(paths).plan ?? 'fix_plan.md';
  const boundary = projectBoundary(options.projectDir);
  const cache = new Map<keyof StateTexts, CachedFile>();
  const memo: ParseMemo = new Map();
  let lastDirFound: boolean | undefined;
  // The newest run record (.ralph/sessions/<run-id>.json): re-read only when it changed.
  let runStamp = '';
  let runSummary: RunStatusSummary | null = null;

  return {
    async load() {
      const dirFound = statSync(paths.ralphDir, { throwIfNoEntry: false })?.isDirectory() ?? false;
      let changed = dirFound !== lastDirFound;
      lastDirFound = dirFound;
      for (const spec of files) {
        const stamp = viewFileStamp(spec.path);
        const cached = cache.get(spec.key);
        if (cached && cached.stamp === stamp) continue;
        changed = true;
        cache.set(spec.key, stamp === 'missing' ? { stamp } : { stamp, ...readViewFile(spec.path, options.projectDir, spec.tailBytes, boundary) });
      }
      const records = listRunRecordFilesUpTo(paths, MAX_SESSION_ENTRIES);
      const newestRecord = records?.[0];
      const stamp = records === undefined ? 'too many' : newestRecord ? `${newestRecord}|${viewFileStamp(newestRecord)}` : '';
      if (stamp !== runStamp) {
        runStamp = stamp;
        // The views show no agent per loop: the attempts log (up to a megabyte read) stays unread.
        // A record bigger than any state file is not one ralph wrote: it is left unread.
        runSummary = records ? readRunSummaryForStatus(paths, { agentsByLoop: false, maxBytes: MAX_WHOLE_BYTES, files: records }) : null;
        changed = true;
      }
      const texts: StateTexts = {};
      const readWarnings: string[] = [...view.warnings];
      if (!records) readWarnings.push(`.ralph/sessions/ holds more than ${MAX_SESSION_ENTRIES} files: the run record is not shown`);
      for (const spec of files) {
        const entry = cache.get(spec.key);
        if (entry?.text !== undefined) texts[spec.key] = entry.text;
        if (entry?.warning) readWarnings.push(entry.warning);
      }
      const snapshot = assembleSnapshot(texts, {
        projectDir: options.projectDir,
        now: options.now(),
        ralphDirFound: dirFound,
        readWarnings,
        optionalSections: view.optionalSections,
        usageWait: view.usageWait,
        planFile,
        isProcessAlive,
        memo,
      });
      // The newest record is an earlier run's when the current run has made no attempt yet.
      const run = toRunView(runSummary);
      const shown = run ? { ...run, earlier: !isOfCurrentRun(run.runId, snapshot.currentRunId) } : undefined;
      return { snapshot: shown ? { ...snapshot, run: shown } : snapshot, changed, runSummary, planText: texts.fixPlan };
    },
  };
}

function toRunView(summary: RunStatusSummary | null): RunView | undefined {
  if (!summary) return undefined;
  return { runId: summary.run_id, status: summary.status, attempts: summary.attempts, gapText: summary.gap_text };
}

/** One-shot load (`ralph-monitor --once`, tests, the bench). */
export async function loadSnapshot(projectDir: string, view: ViewConfig, now: number): Promise<DashboardSnapshot> {
  return (await createSnapshotLoader({ projectDir, now: () => now, view }).load()).snapshot;
}

// Synchronous and without an exception for an absent file: a dozen of these every couple of
// seconds is the dashboard's whole idle cost, so they stay off the thread pool. The change time
// is in the stamp: a file rewritten in place with its size and modification time put back
// (touch can set those, never the change time) is read again.
export function viewFileStamp(path: string): string {
  try {
    const s = statSync(path, { bigint: true, throwIfNoEntry: false });
    return s ? `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : 'missing';
  } catch {
    return 'missing';
  }
}

/**
 * A file of `.ralph/` as the views read it: its text (its last `tailBytes` for a log), or why it
 * could not be read. Never waits on a FIFO, never reads through a link out of `projectDir`.
 */
export function readViewFile(path: string, projectDir: string, tailBytes?: number, boundary?: ProjectBoundary): { text?: string; warning?: string } {
  const opened = openViewFile(path, projectDir, boundary);
  if (!('fd' in opened)) return opened;
  const { fd, stats } = opened;
  try {
    if (tailBytes !== undefined) return { text: readTail(fd, stats.size, tailBytes) };
    if (stats.size > MAX_WHOLE_BYTES) return { warning: `${basename(path)} is too large to be a state file (${stats.size} bytes); ignored` };
    return { text: readTail(fd, stats.size, stats.size) };
  } catch (error) {
    return { warning: `cannot read ${basename(path)} (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  } finally {
    closeSync(fd);
  }
}

/** What tells a file opened through a link out of the project (projectBoundary: one per view). */
export type ProjectBoundary = ReturnType<typeof projectBoundary>;

/**
 * A file of `.ralph/` opened as the views open it (the caller closes `fd`): a regular file inside
 * `projectDir`, or why not (no warning: gone between stat and open). Never waits on a FIFO.
 */
export function openViewFile(
  path: string,
  projectDir: string,
  boundary: ProjectBoundary = (fd, opened) => openedOutsideProject(fd, opened, projectDir),
): { fd: number; stats: Stats } | { warning?: string } {
  const name = basename(path);
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Gone between stat and open: the writer replaced or removed it; the next tick sees it.
    return code === 'ENOENT' ? {} : { warning: `cannot read ${name} (${code ?? String(error)})` };
  }
  let problem: string | undefined;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) problem = 'not a regular file';
    else if (boundary(fd, path)) problem = 'a link out of the project';
    else return { fd, stats };
  } catch (error) {
    problem = (error as NodeJS.ErrnoException).code ?? String(error);
  }
  closeSync(fd);
  return { warning: `cannot read ${name} (${problem})` };
}
