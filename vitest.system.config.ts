// `npm run test:system`: what needs root, a Docker daemon, bubblewrap or pytest (tests/system/), and the
// full randomised kill -9 suite (200+ trials from a new seed, printed so a failure can be
// replayed with RALPH_KILL9_SEED). A missing tool fails its test with the command that installs
// it; .ci/run installs them all and starts dockerd. Files run one at a time: the sandbox tests
// scan every process on the machine and the Docker ones share the daemon.

import { defineConfig } from 'vitest/config';
import { allowRootAgent, dropStartupOnlyEnv } from './tests/helpers/child-env.js';

dropStartupOnlyEnv();
allowRootAgent();

export default defineConfig({
  test: {
    setupFiles: ['tests/helpers/state-home.ts'],
    include: ['tests/system/**/*.test.ts', 'tests/fault/kill9.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
    env: {
      RALPH_KILL9_TRIALS: process.env.RALPH_KILL9_TRIALS || '201',
      RALPH_KILL9_SEED: process.env.RALPH_KILL9_SEED || String(Date.now() % 1_000_000),
    },
  },
});
