// Reading append-only JSONL files (logs/metrics.jsonl): one record per line; a line that does
// not parse or validate (a writer killed mid-line by an older tool) is skipped and counted.

import { readRegularFile } from './control-file.js';
import type { z } from 'zod';

export interface JsonlReadResult<T> {
  entries: T[];
  /** Non-blank lines that were not a valid record. */
  skipped: number;
}

/** Whole-file read; fine for per-loop metrics. `ralph-stats` over millions of lines should stream. */
export function readJsonl<S extends z.ZodType>(path: string, schema: S): JsonlReadResult<z.infer<S>> {
  let text: string | undefined;
  try {
    text = readRegularFile(path);
  } catch {
    text = undefined; // not a file ralph wrote (a FIFO, a directory): no records
  }
  if (text === undefined) return { entries: [], skipped: 0 };
  const entries: Array<z.infer<S>> = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    const record = parseJsonlLine(line, schema);
    if (record === undefined) {
      if (line.trim() !== '') skipped++;
    } else {
      entries.push(record);
    }
  }
  return { entries, skipped };
}

/** One line as a record, or undefined when blank or invalid. */
export function parseJsonlLine<S extends z.ZodType>(line: string, schema: S): z.infer<S> | undefined {
  if (line.trim() === '') return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
