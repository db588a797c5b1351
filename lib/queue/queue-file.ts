// .ralph/queue.json: the issue queue (`ralph-queue`), in the Bash tool's shape (its
// lib/queue_manager.sh), so either version can read the other's queue. Loads never throw: a
// corrupt file is set aside with a warning (the Bash tool silently recreated it empty, losing
// the queue) and an empty queue is used; saves are atomic. The schemas are built on first parse
// (`z.lazy`, as in schemas.ts): the monitor loads this module but most projects have no queue.

import * as z from '../state/zod.js';
import { writeJsonAtomic } from '../state/atomic-write.js';
import { stringField } from '../state/schema-fields.js';
import { readStateFile, type StateReadOptions, type StateReadResult } from '../state/state-file.js';

export const QUEUE_STATUSES = ['pending', 'processing', 'completed', 'failed', 'skipped'] as const;

const nullableString = () => z.preprocess((v) => (v === undefined ? null : v), z.string().nullable());

// gh prints labels as objects ({id, name, color, …}); the Bash tool stores them as it got them.
const labelSchema = z.lazy(() => z.preprocess((v) => (typeof v === 'string' ? { name: v } : v), z.looseObject({ name: z.string() })));

export const queueItemSchema = z.lazy(() =>
  z.looseObject({
    source: z.enum(['github', 'prd']),
    id: z.string().min(1),
    issue_number: z.preprocess((v) => (v === undefined ? null : v), z.number().int().positive().nullable()),
    title: stringField(),
    priority: z.preprocess((v) => v ?? '', z.string().regex(/^(P[0-9])?$/, 'expected "P0"-"P9" or ""')),
    labels: z.preprocess((v) => v ?? [], z.array(labelSchema)),
    dependencies: z.preprocess((v) => v ?? [], z.array(z.number().int().positive())),
    milestone: nullableString(),
    status: z.enum(QUEUE_STATUSES),
    added_at: stringField(),
    started_at: nullableString(),
    completed_at: nullableString(),
    error_message: stringField(),
    /** The PRD file of a `prd` item, relative to the project (absolute in older queues); null for GitHub issues. */
    path: nullableString(),
  }),
);
export type QueueItem = z.infer<typeof queueItemSchema>;

export const queueFileSchema = z.lazy(() =>
  z.looseObject({
    version: stringField('1.0'),
    created_at: stringField(),
    updated_at: stringField(),
    repository: stringField(),
    queue: z.array(queueItemSchema),
  }),
);
export type QueueFile = z.infer<typeof queueFileSchema>;

export function emptyQueueFile(now: string, repository = ''): QueueFile {
  return { version: '1.0', created_at: now, updated_at: now, repository, queue: [] };
}

export function loadQueueFile(path: string, now: string, options: StateReadOptions): StateReadResult<QueueFile> {
  return readStateFile(path, queueFileSchema, emptyQueueFile(now), options);
}

/** Writes the queue atomically, stamping updated_at. */
export function saveQueueFile(path: string, queue: QueueFile, now: string): void {
  writeJsonAtomic(path, { ...queue, updated_at: now });
}
