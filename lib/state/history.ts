// Bounded JSON-array history files: `.circuit_breaker_history` (last 100 transitions; the Bash
// tool lets it grow forever) and `.ralph_session_history` (last 50 resets).

import * as z from './zod.js';
import { writeJsonAtomic } from './atomic-write.js';
import { readStateFile, type StateReadOptions, type StateReadResult } from './state-file.js';

/** The array in `path` ([] when missing; a corrupt file is set aside). */
export function readJsonArray<S extends z.ZodType>(
  path: string,
  entrySchema: S,
  options: StateReadOptions,
): StateReadResult<Array<z.infer<S>>> {
  return readStateFile(path, z.array(entrySchema), [], options);
}

/** Appends `entry`, keeps only the newest `max` entries, writes atomically; returns the array. */
export function appendBoundedJsonArray<S extends z.ZodType>(
  path: string,
  entrySchema: S,
  entry: z.infer<S>,
  max: number,
  options: StateReadOptions,
): Array<z.infer<S>> {
  const { value } = readJsonArray(path, entrySchema, options);
  const next = [...value, entry].slice(-Math.max(1, max));
  writeJsonAtomic(path, next);
  return next;
}
