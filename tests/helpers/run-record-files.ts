// Reading a run record as ralph stores it (the summary and its logs), without changing anything
// on disk, for tests that check what a run left behind.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadRunRecord } from '../../lib/run-record/record-store.js';
import { runRecordSchema, type RunRecord } from '../../lib/run-record/record-schema.js';
import { createMemoryLogger } from './memory-logger.js';
import { fakeClock } from './fake-clock.js';

/** The record whose summary is `file`, assembled and schema-checked (throws when unreadable). */
export function readRunRecordFile(file: string): RunRecord {
  const loaded = loadRunRecord(file, { logger: createMemoryLogger(), clock: fakeClock(), quarantine: false });
  if (loaded.status !== 'ok') throw new Error(`run record ${file}: ${loaded.status}`);
  return runRecordSchema.parse(loaded.record);
}

/** Every run record in a sessions dir, oldest first. */
export function readRunRecordsIn(sessionsDir: string): RunRecord[] {
  let names: string[];
  try {
    names = readdirSync(sessionsDir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch {
    return [];
  }
  return names.map((n) => readRunRecordFile(join(sessionsDir, n)));
}
