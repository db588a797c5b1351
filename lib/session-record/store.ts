// Run records on disk: `.ralph/sessions/<run-id>.json`, written atomically and validated
// before every write (an invalid record is a bug, and never reaches the disk). Reading sets a
// corrupt record aside as `*.corrupt-<stamp>` with a warning; a record of another
// schema_version (a newer ralph) is left alone and ignored.

import { readFileSync } from 'node:fs';
import { writeJsonAtomic } from '../state/atomic-write.js';
import type { RalphPaths } from '../state/paths.js';
import { setAsideCorrupt, type StateReadOptions } from '../state/state-file.js';
import { listRunRecordFiles, runRecordPath } from './record-files.js';
import { isTerminalStatus, RUN_RECORD_SCHEMA_VERSION, runRecordSchema, type RunRecord } from './schema.js';

export { listRunRecordFiles, runRecordPath };

export function saveRunRecord(paths: RalphPaths, record: RunRecord): void {
  const checked = runRecordSchema.safeParse(record);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new Error(`Invalid run record ${record.run_id}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim());
  }
  writeJsonAtomic(runRecordPath(paths, record.run_id), checked.data);
}

export type LoadRunRecordResult =
  | { status: 'ok'; record: RunRecord }
  | { status: 'missing' | 'corrupt' | 'other-version' };

export function loadRunRecord(path: string, options: StateReadOptions): LoadRunRecordResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { status: 'missing' };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    setAsideCorrupt(path, 'not valid JSON', options);
    return { status: 'corrupt' };
  }
  const version = data !== null && typeof data === 'object' ? (data as { schema_version?: unknown }).schema_version : undefined;
  if (typeof version === 'number' && version !== RUN_RECORD_SCHEMA_VERSION) return { status: 'other-version' };
  const parsed = runRecordSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    setAsideCorrupt(path, `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`, options);
    return { status: 'corrupt' };
  }
  return { status: 'ok', record: parsed.data };
}

/**
 * The newest readable record (a corrupt one is set aside and the next tried). When the newest is
 * of another schema version, a newer ralph owns the project's runs: none is returned.
 */
export function loadLatestRunRecord(paths: RalphPaths, options: StateReadOptions): RunRecord | undefined {
  for (const file of listRunRecordFiles(paths)) {
    const loaded = loadRunRecord(file, options);
    if (loaded.status === 'ok') return loaded.record;
    if (loaded.status === 'other-version') return undefined;
  }
  return undefined;
}

/** The last run, when it has not ended: the one `ralph` continues. */
export function findResumableRun(paths: RalphPaths, options: StateReadOptions): RunRecord | undefined {
  const latest = loadLatestRunRecord(paths, options);
  return latest && !isTerminalStatus(latest.status) ? latest : undefined;
}
