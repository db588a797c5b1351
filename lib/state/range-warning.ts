// The warning for a state value ralph could not have written (the agent can write .ralph/): the
// guards' files are range-checked when read back and a bad value is reset with this warning.

import { basename } from 'node:path';
import type { StateReadOptions } from './state-file.js';

export function warnRange(path: string, problem: string, options: Pick<StateReadOptions, 'logger'>): void {
  options.logger.warn(`State file ${basename(path)} holds a value ralph could not have written: ${problem}`);
}

export function describeProblems(problems: ReadonlyArray<{ field: string; problem: string }>): string {
  return problems.map(({ field, problem }) => `${field} ${problem}`).join('; ');
}
