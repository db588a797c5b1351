// `npm test`: every test under tests/ except the system suite (tests/system/, which needs root,
// a Docker daemon and bubblewrap: vitest.system.config.ts). Test files run in parallel worker
// processes, one per core (at least two: much of a test's time is spent waiting on the real
// processes it spawns, ralph, git, tmux and the fake agents). RALPH_TEST_WORKERS overrides it.
//
// Two projects. `unit` (tests/unit): in-process tests, run without isolation: a worker process
// runs file after file with the modules it has already loaded, instead of a fresh process
// importing them again for each file. Such a file leaves no process-wide state behind (no
// vi.mock, no fake timers; the time zone through tests/helpers/time-zone.ts; a chdir undone in
// a finally). `rest`: everything else, each file in a fresh process as before.

import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { dropStartupOnlyEnv } from './tests/helpers/child-env.js';

dropStartupOnlyEnv();

const UNIT = 'tests/unit/**/*.test.ts';

export default defineConfig({
  test: {
    setupFiles: ['tests/helpers/state-home.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: Number(process.env.RALPH_TEST_WORKERS || Math.max(2, availableParallelism())),
    projects: [
      { extends: true, test: { name: 'unit', include: [UNIT], isolate: false } },
      {
        extends: true,
        test: { name: 'rest', include: ['tests/**/*.test.ts'], exclude: [...configDefaults.exclude, 'tests/system/**', UNIT] },
      },
    ],
  },
});
