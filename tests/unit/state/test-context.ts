// Shared bits for the state tests: a temp dir per test and a fixed clock.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Clock } from '../../../lib/platform/clock.js';

/** A fresh temp dir for each test, removed afterwards. */
export function useTempDir(prefix = 'ralph-state-'): () => string {
  let dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    dirs = [];
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}

/** A clock stopped at `start` (ms) that advances only when told. */
export function fixedClock(start = Date.UTC(2026, 10, 30, 4, 48, 19)): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}
