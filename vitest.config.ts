// `npm test`: every test under tests/ except the system suite (tests/system/, which needs root,
// a Docker daemon and bubblewrap: vitest.system.config.ts). Test files run in parallel worker
// processes; most of their time is spent waiting on the real processes they spawn (ralph, git,
// tmux, the fake agents), so there are more workers than this project's 2-core CI machine has
// cores. RALPH_TEST_WORKERS overrides the count.

import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'tests/system/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: Number(process.env.RALPH_TEST_WORKERS || 4),
  },
});
