// Named git operations more than one room runs, each one git command through the gateway
// (git-gateway.ts) like any other: one place says how it is asked and what its answer means.

import type { ProcessRunner } from './process-types.js';

/** Where a git operation runs. */
export interface GitAt {
  runner: ProcessRunner;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

const COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** HEAD's commit id; undefined outside a repository and on a branch with no commit yet. */
export async function headCommit(git: GitAt): Promise<string | undefined> {
  const result = await git.runner.run('git', ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], {
    cwd: git.cwd,
    env: git.env,
    timeoutMs: 30_000,
    gitReadsNoContent: true,
  });
  const id = result.code === 0 ? result.stdout.trim() : '';
  return COMMIT_ID.test(id) ? id : undefined;
}
