// Where run records live, `.ralph/sessions/<run-id>.json`, and which schema version this ralph
// writes. No schema here (it loads zod), so a fast reader such as `ralph --status` can find the
// newest record without it.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RalphPaths } from '../state/paths.js';

export const RUN_RECORD_SCHEMA_VERSION = 1;

export function runRecordPath(paths: RalphPaths, runId: string): string {
  return join(paths.sessionsDir, `${runId}.json`);
}

/** Record files, newest first (run ids begin with their creation time). */
export function listRunRecordFiles(paths: RalphPaths): string[] {
  let names: string[];
  try {
    names = readdirSync(paths.sessionsDir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
    .sort()
    .reverse()
    .map((name) => join(paths.sessionsDir, name));
}
