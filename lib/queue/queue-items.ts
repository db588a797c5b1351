// Changes to the issue queue's items, as the Bash tool's lib/queue_manager.sh makes them: ids,
// adding without duplicates, status changes with their timestamps, the recovery of items an
// interrupted run left `processing`, and the counts `ralph-queue status` prints. Pure.

import { describeExitCode } from '../errors.js';

export type QueueItemStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'skipped';

/** The fields these changes read and write (the state file's items have more). */
export interface QueueEntry {
  id: string;
  issue_number: number | null;
  status: QueueItemStatus;
  started_at: string | null;
  completed_at: string | null;
  error_message: string;
}

export interface QueueCounts {
  total: number;
  pending: number;
  processing: number;
  completed: number;
  failed: number;
  skipped: number;
}

/**
 * `prd-<slug>` of a PRD file's path as the queue stores it, relative to the project
 * (`docs/feature-a.md` → `prd-docs-feature-a-md`; `../feature-a.md` → `prd-feature-a-md`). The
 * Bash tool slugged the absolute path, which named the machine's folders in every id.
 */
export function prdItemId(path: string): string {
  const slug = path
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `prd-${slug || 'item'}`;
}

export function githubItemId(issueNumber: number): string {
  return `github-${issueNumber}`;
}

/** An item matches `ref` by its issue number (`12` or `#12`) or by its id. */
export function matchesRef(item: QueueEntry, ref: string): boolean {
  const number = /^#?(\d+)$/.exec(ref.trim())?.[1];
  return item.id === ref || (number !== undefined && item.issue_number === Number(number));
}

/** Appends the item unless one with its id is queued already. */
export function addItem<T extends QueueEntry>(items: readonly T[], item: T): { items: T[]; added: boolean } {
  if (items.some((existing) => existing.id === item.id)) return { items: [...items], added: false };
  return { items: [...items, item], added: true };
}

/**
 * The item with its new status: `processing` stamps started_at (once), an end state stamps
 * completed_at, and `failed` records why.
 */
export function markItem<T extends QueueEntry>(item: T, status: QueueItemStatus, now: string, errorMessage = ''): T {
  const ended = status === 'completed' || status === 'failed' || status === 'skipped';
  return {
    ...item,
    status,
    error_message: status === 'failed' ? errorMessage : status === 'completed' ? '' : item.error_message,
    started_at: status === 'processing' && item.started_at === null ? now : item.started_at,
    completed_at: ended ? now : item.completed_at,
  };
}

/** Items a killed run left `processing` go back to `pending`, so a resume picks them up again. */
export function resetInterrupted<T extends QueueEntry>(items: readonly T[]): { items: T[]; reset: number } {
  let reset = 0;
  const next = items.map((item) => {
    if (item.status !== 'processing') return item;
    reset++;
    return { ...item, status: 'pending' as const, started_at: null };
  });
  return { items: next, reset };
}

export function countByStatus(items: readonly QueueEntry[]): QueueCounts {
  const count = (status: QueueItemStatus) => items.filter((item) => item.status === status).length;
  return {
    total: items.length,
    pending: count('pending'),
    processing: count('processing'),
    completed: count('completed'),
    failed: count('failed'),
    skipped: count('skipped'),
  };
}

export type ItemOutcome =
  | { kind: 'completed' }
  | { kind: 'failed'; reason: string }
  /** Ctrl-C / SIGTERM: the item goes back to pending and the queue run ends with this code. */
  | { kind: 'interrupted'; exitCode: number };

/**
 * What a queue item's loop exit code means for the item (ralph's exit codes, unlike the Bash
 * tool's loop, which always exited 0 and so counted halts and limits as success).
 */
export function decideItemOutcome(exitCode: number, exitReason: string): ItemOutcome {
  const why = exitReason ? `: ${exitReason}` : '';
  if (exitCode === 0) return { kind: 'completed' };
  if (exitCode >= 128) return { kind: 'interrupted', exitCode };
  return { kind: 'failed', reason: `${describeExitCode(exitCode)} (exit ${exitCode})${why}` };
}
