// Where run records live and which schema version this ralph writes: `.ralph/sessions/<run-id>.json`
// (the run's summary) with `<run-id>.attempts.jsonl` (one settled attempt per line) and
// `<run-id>.observations.jsonl` (one observation per line) beside it. No schema here (it loads
// zod), so a fast reader such as `ralph --status` can find the newest record without it.

import { opendirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RalphPaths } from '../state/paths.js';

/** 2: attempts and observations in JSONL logs beside the summary · 1: everything inline (still read). */
export const RUN_RECORD_SCHEMA_VERSION = 2;
export const INLINE_RECORD_SCHEMA_VERSION = 1;

export function runRecordPath(paths: RalphPaths, runId: string): string {
  return join(paths.sessionsDir, `${runId}.json`);
}

/** The logs' names as the summary stores them: relative to the sessions dir. */
export function attemptsLogName(runId: string): string {
  return `${runId}.attempts.jsonl`;
}

export function observationsLogName(runId: string): string {
  return `${runId}.observations.jsonl`;
}

/** Record files (the summaries), newest first (run ids begin with their creation time). */
export function listRunRecordFiles(paths: Pick<RalphPaths, 'sessionsDir'>): string[] {
  let names: string[];
  try {
    names = readdirSync(paths.sessionsDir);
  } catch {
    return [];
  }
  return newestRecordsFirst(paths.sessionsDir, names);
}

function isRecordName(name: string): boolean {
  return name.endsWith('.json') && !name.startsWith('.');
}

function newestRecordsFirst(sessionsDir: string, names: string[]): string[] {
  return names
    .filter(isRecordName)
    .sort()
    .reverse()
    .map((name) => join(sessionsDir, name));
}

/**
 * listRunRecordFiles for a view that looks every second: undefined when the folder holds more
 * than `maxEntries` entries, found without reading the rest (the agent can fill the folder).
 */
export function listRunRecordFilesUpTo(paths: RalphPaths, maxEntries: number): string[] | undefined {
  let dir;
  try {
    dir = opendirSync(paths.sessionsDir);
  } catch {
    return [];
  }
  const names: string[] = [];
  try {
    for (let entry = dir.readSync(), seen = 1; entry !== null; entry = dir.readSync(), seen++) {
      if (seen > maxEntries) return undefined;
      if (isRecordName(entry.name)) names.push(entry.name);
    }
  } catch {
    return [];
  } finally {
    dir.closeSync();
  }
  return newestRecordsFirst(paths.sessionsDir, names);
}
