// The content ids seen in the run (the circuit breaker's `seen_content`), kept beside the ledger
// in a file of their own: the ledger is written several times a loop and the breaker's view
// once a loop, and the ids, up to a few hundred, would make each of those writes grow with the
// run. This file is written once a loop at most, in one line, and skipped when unchanged.

import { writeFileAtomic } from './atomic-write.js';
import { contentMemoryPath } from './ledger-path.js';
import { readStateText } from './ledger.js';
import { contentMemorySchema, type CircuitBreakerFile } from './schemas.js';
import * as z from './zod.js';

export type ContentMemoryFile = NonNullable<CircuitBreakerFile['seen_content']>;

const fileSchema = z.looseObject({ version: z.literal(1), seen_content: contentMemorySchema.nullable() });

/**
 * The ids beside the ledger `ledgerFile`: null when the breaker held none when they were saved
 * (a new run, a reset); undefined when there is no file (a ledger of an earlier version kept
 * them in its breaker) or it is unreadable (reported).
 */
export function readContentMemory(ledgerFile: string, warn: (message: string) => void): ContentMemoryFile | null | undefined {
  const path = contentMemoryPath(ledgerFile);
  const text = readStateText(path, "the run's content ids", warn);
  if (text === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  const parsed = fileSchema.safeParse(data);
  if (parsed.success) return parsed.data.seen_content;
  warn(`${path} is unreadable; the run counts the content it has seen from now on`);
  return undefined;
}

/**
 * Saves the ids (none: null) beside the ledger, atomically (mode 600); unchanged bytes are not
 * written again. Saved after the ledger, whose write made the folder (mode 700).
 */
export function saveContentMemory(ledgerFile: string, memory: ContentMemoryFile | undefined): void {
  writeFileAtomic(contentMemoryPath(ledgerFile), `${JSON.stringify({ version: 1, seen_content: memory ?? null })}\n`, { mode: 0o600 });
}
