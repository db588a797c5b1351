// A file's text, or undefined when it cannot be read (missing, a directory, no permission): for
// optional inputs whose absence is an answer, not an error.

import { readFileSync } from 'node:fs';

export function readTextIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
