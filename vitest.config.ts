// `npm test`: every test under tests/ except the system suite (tests/system/, which needs root,
// a Docker daemon and bubblewrap: vitest.system.config.ts). Test files run in parallel worker
// processes, one per core (at least two: much of a test's time is spent waiting on the real
// processes it spawns, ralph, git, tmux and the fake agents). RALPH_TEST_WORKERS overrides it.

import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    setupFiles: ['tests/helpers/state-home.ts'],
    include: ['tests/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'tests/system/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: Number(process.env.RALPH_TEST_WORKERS || Math.max(2, availableParallelism())),
  },
});
