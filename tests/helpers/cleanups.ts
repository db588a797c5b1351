// What a test file made (a project, a fake CLI, a folder, a child process) and must undo: each
// maker pushes its clean-up, and after each test they run, the last made first, whether the test
// passed or failed. One failing clean-up does not keep the others from running.

import { afterEach } from 'vitest';

export interface Cleanups {
  push(...cleanups: Array<() => unknown>): void;
}

/** Registers the afterEach that runs what was pushed since the last test; call once per file. */
export function useCleanups(): Cleanups {
  const pending: Array<() => unknown> = [];
  afterEach(async () => {
    const errors: unknown[] = [];
    while (pending.length) {
      try {
        await pending.pop()!();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length) throw errors[0];
  });
  return {
    push(...cleanups) {
      pending.push(...cleanups);
    },
  };
}
