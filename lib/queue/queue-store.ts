// Reading and changing .ralph/queue.json: every change is one read-modify-write of the whole
// file, saved atomically, so a killed `ralph-queue` leaves the old queue or the new one.

import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/deps.js';
import { formatIsoTimestamp } from '../state/timestamps.js';
import { loadQueueFile, saveQueueFile, type QueueFile } from '../state/queue-file.js';

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
      const stamp = now();
      const next = change(read(), stamp);
      saveQueueFile(path, next, stamp);
      return { ...next, updated_at: stamp };
    },
  };
}
