// Run records on disk (layout in record-layout.ts): a save appends the attempts and
// observations not logged yet, one write per log, then rewrites the small summary atomically —
// O(1) per loop however long the run. Everything written is validated first (an invalid record
// is a bug, and never reaches the disk). Reading sets a corrupt summary aside as
// `*.corrupt-<stamp>` with a warning; a record of a newer schema_version is left alone and
// ignored; a schema 1 record (attempts inline) is read as it is and logged at its next save.
// Log lines past the summary's counts (a torn last line after `kill -9`, or a line whose summary
// write never happened) are not part of the record: a reader ignores them, and the loop's read
// rewrites the log without them before it appends again.

import { rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { z } from 'zod';
import { appendJsonLines, writeFileAtomic, writeJsonAtomic } from '../state/atomic-write.js';
import { readRegularFile } from '../state/control-file.js';
import type { RalphPaths } from '../state/paths.js';
import { setAsideCorrupt, type StateReadOptions } from '../state/state-file.js';
import { attemptsLogName, INLINE_RECORD_SCHEMA_VERSION, listRunRecordFiles, observationsLogName, runRecordPath } from './record-files.js';
import {
  assembleRunRecord,
  attemptLineSchema,
  inlineRunRecordSchema,
  NOTHING_LOGGED,
  planRecordWrite,
  runSummarySchema,
  type LogPosition,
} from './record-layout.js';
import { isTerminalStatus, observationSchema, RUN_RECORD_SCHEMA_VERSION, type RunRecord } from './record-schema.js';

export { listRunRecordFiles, runRecordPath };
export { NOTHING_LOGGED, type LogPosition };

/**
 * Bring the disk up to `record`, given what its logs already hold (`position`, from the load or
 * the previous save; without it, what the summary on disk says). Returns the new position.
 */
export function saveRunRecord(paths: RalphPaths, record: RunRecord, position?: LogPosition): LogPosition {
  const write = planRecordWrite(record, position ?? positionOnDisk(paths, record.run_id));
  check(runSummarySchema, write.summary, record.run_id);
  for (const line of write.attemptLines) check(attemptLineSchema, line, record.run_id);
  for (const line of write.observationLines) check(observationSchema, line, record.run_id);
  appendJsonLines(join(paths.sessionsDir, write.summary.attempts_file), write.attemptLines);
  appendJsonLines(join(paths.sessionsDir, write.summary.observations_file), write.observationLines);
  writeJsonAtomic(runRecordPath(paths, record.run_id), write.summary);
  return write.position;
}

/** What the saved summary of this run says its logs hold (nothing, when there is none). */
function positionOnDisk(paths: RalphPaths, runId: string): LogPosition {
  let data: unknown;
  try {
    data = JSON.parse(readRegularFile(runRecordPath(paths, runId)) ?? '');
  } catch {
    return NOTHING_LOGGED;
  }
  const summary = runSummarySchema.safeParse(data);
  if (summary.success && summary.data.run_id === runId) {
    const { attempts_logged: attempts, observations_logged: observations, observations_before_log: observationsBeforeLog } = summary.data;
    return { attempts, observations, observationsBeforeLog };
  }
  const inline = inlineRunRecordSchema.safeParse(data);
  return inline.success ? { ...NOTHING_LOGGED, observationsBeforeLog: inline.data.observations_dropped } : NOTHING_LOGGED;
}

export type LoadRunRecordResult = { status: 'ok'; record: RunRecord; position: LogPosition } | { status: 'missing' | 'corrupt' | 'other-version' };

/** With `quarantine: false` nothing on disk changes (a read-only viewer). */
export function loadRunRecord(path: string, options: StateReadOptions): LoadRunRecordResult {
  let text: string | undefined;
  try {
    // The agent can write .ralph/sessions/: a FIFO there is skipped, never waited on.
    text = readRegularFile(path);
  } catch {
    return { status: 'missing' };
  }
  if (text === undefined) return { status: 'missing' };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    setAsideCorrupt(path, 'not valid JSON', options);
    return { status: 'corrupt' };
  }
  const version = data !== null && typeof data === 'object' ? (data as { schema_version?: unknown }).schema_version : undefined;
  if (version === INLINE_RECORD_SCHEMA_VERSION) return loadInlineRecord(path, data, options);
  if (typeof version === 'number' && version !== RUN_RECORD_SCHEMA_VERSION) return { status: 'other-version' };
  const parsed = runSummarySchema.safeParse(data);
  if (!parsed.success) return setAsideInvalid(path, parsed.error, options);
  const summary = parsed.data;
  const dir = join(path, '..');
  const attempts = readLog(join(dir, attemptsLogName(summary.run_id)), summary.attempts_logged, attemptLineSchema, options);
  const observations = readLog(join(dir, observationsLogName(summary.run_id)), summary.observations_logged, observationSchema, options);
  const position: LogPosition = {
    attempts: attempts.length,
    observations: observations.length,
    observationsBeforeLog: summary.observations_before_log,
  };
  return { status: 'ok', record: assembleRunRecord(summary, attempts, observations), position };
}

/** Schema 1: the whole record inline. Its next save writes the logs from nothing. */
function loadInlineRecord(path: string, data: unknown, options: StateReadOptions): LoadRunRecordResult {
  const parsed = inlineRunRecordSchema.safeParse(data);
  if (!parsed.success) return setAsideInvalid(path, parsed.error, options);
  const record: RunRecord = { ...parsed.data, schema_version: RUN_RECORD_SCHEMA_VERSION };
  if (options.quarantine !== false) {
    // Logs left by a migration that was killed before its summary write.
    for (const name of [attemptsLogName(record.run_id), observationsLogName(record.run_id)]) rmSync(join(path, '..', name), { force: true });
  }
  return { status: 'ok', record, position: { ...NOTHING_LOGGED, observationsBeforeLog: record.observations_dropped } };
}

/**
 * The first `count` lines of a log that parse (a missing or unreadable one is skipped). When the
 * file holds anything else — lines past them, a torn last line — the loop's read rewrites it
 * with exactly these lines, so its next append starts on a clean line after them.
 */
function readLog<S extends z.ZodType>(file: string, count: number, schema: S, options: StateReadOptions): z.infer<S>[] {
  let text: string | undefined;
  try {
    text = readRegularFile(file);
  } catch {
    return [];
  }
  if (text === undefined) return [];
  const lines = text.split('\n');
  const complete = lines.slice(0, lines.length - 1); // after the last '\n': '' or a torn line
  const values: z.infer<S>[] = [];
  const kept: string[] = [];
  for (const line of complete.slice(0, count)) {
    const value = parseLine(line, schema);
    if (value === undefined) continue;
    values.push(value);
    kept.push(line);
  }
  const exact = kept.length === complete.length && lines[lines.length - 1] === '';
  if (!exact && options.quarantine !== false) {
    writeFileAtomic(file, kept.map((line) => `${line}\n`).join(''));
    if (kept.length < Math.min(count, complete.length)) {
      options.logger.warn(`Session log ${basename(file)}: ${Math.min(count, complete.length) - kept.length} unreadable line(s) dropped`);
    }
  }
  return values;
}

function parseLine<S extends z.ZodType>(line: string, schema: S): z.infer<S> | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function setAsideInvalid(path: string, error: z.ZodError, options: StateReadOptions): LoadRunRecordResult {
  const issue = error.issues[0];
  setAsideCorrupt(path, `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`, options);
  return { status: 'corrupt' };
}

function check<S extends z.ZodType>(schema: S, value: unknown, runId: string): void {
  const checked = schema.safeParse(value);
  if (checked.success) return;
  const issue = checked.error.issues[0];
  throw new Error(`Invalid run record ${runId}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim());
}

export interface StoredRunRecord {
  record: RunRecord;
  position: LogPosition;
}

/**
 * The newest readable record (a corrupt one is set aside and the next tried). When the newest is
 * of another schema version, a newer ralph owns the project's runs: none is returned.
 */
export function loadLatestStoredRun(paths: RalphPaths, options: StateReadOptions): StoredRunRecord | undefined {
  for (const file of listRunRecordFiles(paths)) {
    const loaded = loadRunRecord(file, options);
    if (loaded.status === 'ok') return { record: loaded.record, position: loaded.position };
    if (loaded.status === 'other-version') return undefined;
  }
  return undefined;
}

export function loadLatestRunRecord(paths: RalphPaths, options: StateReadOptions): RunRecord | undefined {
  return loadLatestStoredRun(paths, options)?.record;
}

/** The last run, when it has not ended: the one `ralph` continues. */
export function findResumableRun(paths: RalphPaths, options: StateReadOptions): RunRecord | undefined {
  const latest = loadLatestRunRecord(paths, options);
  return latest && !isTerminalStatus(latest.status) ? latest : undefined;
}
