// A file's text, or undefined when it cannot be read (missing, a directory, no permission): for
// optional inputs whose absence is an answer, not an error. A FIFO is not waited on.

import { readRegularFile } from '../state/control-file.js';

export function readTextIfPresent(path: string): string | undefined {
  try {
    return readRegularFile(path);
  } catch {
    return undefined;
  }
}
