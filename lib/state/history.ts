// Bounded JSON-array history files: `.circuit_breaker_history` (last 100 transitions; the Bash
// tool lets it grow forever) and `.ralph_session_history` (last 50 resets). A run holds each one
// (HeldHistory): read once when it starts, appended in memory, written through whole. A command
// outside a run (--reset-circuit, --reset-session) appends once with appendBoundedJsonArray.

import * as z from './zod.js';
import { writeJsonAtomic } from './atomic-write.js';
import { readStateFile, type StateReadOptions, type StateReadResult } from './state-file.js';

/** The array in `path` ([] when missing; a corrupt file is set aside). */
export function readJsonArray<S extends z.ZodType>(path: string, entrySchema: S, options: StateReadOptions): StateReadResult<Array<z.infer<S>>> {
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
  return boundedAppend(path, value, entry, max);
}

/**
 * A bounded history held for a run: the file is read once (loadHeldHistory), each entry appended
 * in memory and the whole array written through atomically. The agent can write .ralph/, so the
 * file is never read back: what it writes there mid-run is not merged in, and the next append
 * puts the run's history back.
 */
export class HeldHistory<T> {
  private entries: readonly T[];

  constructor(
    private readonly path: string,
    loaded: readonly T[],
    private readonly max: number,
  ) {
    this.entries = loaded;
  }

  get value(): readonly T[] {
    return this.entries;
  }

  /** Appends `entry`, keeps the newest `max`, writes the file; returns the history. */
  append(entry: T): readonly T[] {
    this.entries = boundedAppend(this.path, this.entries, entry, this.max);
    return this.entries;
  }
}

/** The history in `path` as the run starts, held for it. */
export function loadHeldHistory<S extends z.ZodType>(path: string, entrySchema: S, max: number, options: StateReadOptions): HeldHistory<z.infer<S>> {
  return new HeldHistory(path, readJsonArray(path, entrySchema, options).value, max);
}

function boundedAppend<T>(path: string, entries: readonly T[], entry: T, max: number): T[] {
  const next = [...entries, entry].slice(-Math.max(1, max));
  writeJsonAtomic(path, next);
  return next;
}
