// What both ways of processing the queue share (one item after another, process-queue.ts, or N
// at a time, process-queue-parallel.ts): the options of a queue run, an item's spec, an item's
// status change and how an item is named in the log.

import type { Deps } from '../platform/deps.js';
import type { RalphPaths } from '../state/paths.js';
import { ledgerPath } from '../state/ledger-path.js';
import { readLedger } from '../state/ledger.js';
import { toPlainTextLine } from '../tasks/task-line.js';
import type { QueueItem } from './queue-file.js';
import { copyPrdSpec, writeIssueSpec } from './item-workspace.js';
import { fetchQueueIssue } from './queue-issues.js';
import type { QueueStore } from './queue-store.js';

export interface ProcessQueueOptions {
  paths: RalphPaths;
  /** The flag layer of every item's run (ralph's own flags, for `ralph --process-queue`). */
  flags: Record<string, string | number | boolean>;
  deps: Deps;
  haltOnFailure: boolean;
  /** Items at a time (2-16: each in its own worktree, process-queue-parallel.ts); default 1. */
  parallel?: number;
}

/** The item's spec in .ralph/specs/ (the issue fetched, or the PRD copied); its project-relative path. */
export async function prepareItemSpec(
  item: QueueItem,
  repository: string,
  paths: RalphPaths,
  deps: Deps,
): Promise<{ ok: true; path: string } | { ok: false; reason: string }> {
  try {
    if (item.source === 'github' && item.issue_number !== null) {
      const fetched = await fetchQueueIssue(item.issue_number, repository, { runner: deps.processRunner, cwd: paths.projectDir, env: deps.env });
      if (!fetched.ok) return { ok: false, reason: `preparation failed: ${fetched.message}` };
      return { ok: true, path: writeIssueSpec(paths, fetched.issue) };
    }
    return { ok: true, path: copyPrdSpec(paths, item, queuedPrds(paths, deps)) };
  } catch (error) {
    return { ok: false, reason: `preparation failed: ${(error as Error).message}` };
  }
}

/** The PRD files the user queued, from the ledger (out of the agent's reach). */
function queuedPrds(paths: RalphPaths, deps: Deps): string[] {
  const ledger = readLedger(paths.ledger ?? ledgerPath(paths.projectDir, deps.env, deps.homeDir), (message) => deps.logger.warn(message));
  return ledger?.queued_prds ?? [];
}

export function setStatus(store: QueueStore, id: string, change: (item: QueueItem, now: string) => QueueItem): void {
  store.update((queue, now) => ({ ...queue, queue: queue.queue.map((it) => (it.id === id ? change(it, now) : it)) }));
}

export function describeItem(item: QueueItem): string {
  const ref = item.issue_number === null ? item.id : `#${item.issue_number}`;
  return `${ref} ${toPlainTextLine(item.title)}`.trim();
}
