// Reading and changing .ralph/queue.json: every change is one read-modify-write of the whole
// file, saved atomically, so a killed `ralph-queue` leaves the old queue or the new one, and done
// under a short lock (`queue.json.lock`), so two processes changing it at once lose nothing.

import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/deps.js';
import { withFileLock } from '../state/file-lock.js';
import { formatIsoTimestamp } from '../state/timestamps.js';
import { loadQueueFile, saveQueueFile, type QueueFile, type QueueItem } from './queue-file.js';

export interface QueueStore {
  read(): QueueFile;
  /** Applies `change` to the current file and saves the result; returns it. */
  update(change: (queue: QueueFile, now: string) => QueueFile): QueueFile;
  now(): string;
}

export function openQueueStore(path: string, deps: { clock: Clock; logger: Logger }): QueueStore {
  const now = () => formatIsoTimestamp(deps.clock.now());
  // A corrupt file is moved aside (with a warning) by the read; the next save starts afresh.
  const read = () => loadQueueFile(path, now(), { logger: deps.logger, clock: deps.clock }).value;
  return {
    read,
    now,
    update(change) {
      return withFileLock(`${path}.lock`, () => {
        const stamp = now();
        const next = change(read(), stamp);
        saveQueueFile(path, next, stamp);
        return { ...next, updated_at: stamp };
      });
    },
  };
}

type HeldStatus = Pick<QueueItem, 'status' | 'started_at' | 'completed_at' | 'error_message'>;

/**
 * The store as a queue run sees it. The agent of the running item can write queue.json, so the
 * status of every item the run has saved is the run's own, held in memory and written back on
 * each save: a file that says another item is completed (or this one failed) decides nothing.
 * The file still adds items (`ralph-queue add` meanwhile) and drops them (`remove`).
 */
export function holdStatuses(store: QueueStore): QueueStore {
  const held = new Map<string, HeldStatus>();
  const apply = (queue: QueueFile): QueueFile => ({ ...queue, queue: queue.queue.map((item) => ({ ...item, ...held.get(item.id) })) });
  return {
    now: store.now,
    read: () => apply(store.read()),
    update(change) {
      return store.update((queue, now) => {
        const next = change(apply(queue), now);
        for (const { id, status, started_at, completed_at, error_message } of next.queue) held.set(id, { status, started_at, completed_at, error_message });
        return next;
      });
    },
  };
}
