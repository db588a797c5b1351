// The Bash tool's one-value text files: `.call_count`, `.token_count`, `.last_reset`
// (`YYYYMMDDHH`).

import { basename } from 'node:path';
import type { Logger } from '../platform/deps.js';
import { writeFileAtomic } from './atomic-write.js';
import { readRegularFile } from './control-file.js';

export interface IntegerReadOptions {
  logger: Logger;
}

/** The integer in `path`; 0 when missing or empty, 0 with a WARN when not an integer. */
export function readIntegerFile(path: string, options: IntegerReadOptions): number {
  const text = readTrimmedText(path);
  const value = text === undefined ? undefined : parseIntegerText(text);
  if (value === undefined) return 0;
  if (Number.isNaN(value)) {
    options.logger.warn(`State file ${basename(path)} holds "${text!.slice(0, 40)}", not an integer; using 0`);
    return 0;
  }
  return value;
}

/** The integer a counter file's text holds: undefined when it is empty, NaN when it is not an integer. */
export function parseIntegerText(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

/** `echo N > file`, atomically: the value and a newline. */
export function writeIntegerFile(path: string, value: number): void {
  writeFileAtomic(path, `${Math.trunc(value)}\n`);
}

/** The file's text without surrounding whitespace (a CR from Windows editors included). */
export function readTrimmedText(path: string): string | undefined {
  try {
    return readRegularFile(path)?.trim();
  } catch {
    return undefined;
  }
}
