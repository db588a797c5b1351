// `npm test`: every test under tests/ except the system suite (tests/system/, which needs root,
// a Docker daemon and bubblewrap: vitest.system.config.ts). Test files run in parallel worker
// processes, one more than the cores (at least two): much of a test's time is spent waiting on
// the real processes it spawns, ralph, git, tmux and the fake agents; on 2 cores three workers
// took 173 s, two 197 s and four 182 s (and, with the checks beside them on native tools, three
// and four the same, 174 s from a fresh clone). RALPH_TEST_WORKERS overrides it.
//
// No file runs isolated: a worker process runs file after file with the modules it has already
// loaded, instead of a fresh process importing them again for each file (on 2 cores that saved a
// sixth of the suite's CPU). So a test file leaves no process-wide state behind: no vi.mock; fake
// timers, the environment (TMPDIR, TZ through tests/helpers/time-zone.ts) and a chdir restored in
// a finally or an afterEach; ralph's module-level caches keyed by a temp folder of the test's
// own. A file that cannot keep to that goes in a third project with `isolate: true`. Two
// projects, so that the in-process unit tests can be run alone (`npm run test:unit`).
//
// The global setup (tests/helpers/global-setup.ts) points TMPDIR at a private folder in RAM
// when there is one (on 2 cores the suite took 150 s instead of 185: a third less kernel time)
// and bundles the fake claude, once, before any worker starts.
//
// Where the CPU goes: `RALPH_TEST_CPU_LOG=<file> npx vitest run` records each file's CPU
// (tests/helpers/cpu-per-file.ts) and `node scripts/test-cpu.mjs <file>` sums it up.

import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { allowRootAgent, dropStartupOnlyEnv } from './tests/helpers/child-env.js';

dropStartupOnlyEnv();
allowRootAgent();

const UNIT = 'tests/unit/**/*.test.ts';

export default defineConfig({
  test: {
    globalSetup: ['tests/helpers/global-setup.ts'],
    setupFiles: ['tests/helpers/state-home.ts', 'tests/helpers/cpu-per-file.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    isolate: false,
    // Transformed test modules are kept between runs (keyed by their content and the config).
    experimental: { fsModuleCache: true, fsModuleCachePath: 'node_modules/.cache/ralph/vitest' },
    maxWorkers: Number(process.env.RALPH_TEST_WORKERS || Math.max(2, availableParallelism() + 1)),
    projects: [
      { extends: true, test: { name: 'unit', include: [UNIT] } },
      {
        extends: true,
        test: { name: 'rest', include: ['tests/**/*.test.ts'], exclude: [...configDefaults.exclude, 'tests/system/**', UNIT] },
      },
    ],
  },
});
