// Named git operations more than one room runs, each one git command through the gateway
// (git-gateway.ts) like any other: one place says how it is asked and what its answer means.

import type { ProcessHandle, ProcessRunner, RunOptions, RunResult, StartOptions } from './process-types.js';

/** Where a git operation runs. */
export interface GitAt {
  runner: ProcessRunner;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

const COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** HEAD's commit id; undefined outside a repository and on a branch with no commit yet. */
export async function headCommit(git: GitAt): Promise<string | undefined> {
  const result = await runGitCommand(git.runner, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], {
    cwd: git.cwd,
    env: git.env,
    timeoutMs: 30_000,
    gitReadsNoContent: true,
  });
  const id = result.code === 0 ? result.stdout.trim() : '';
  return COMMIT_ID.test(id) ? id : undefined;
}

/**
 * The one way a room starts a git command: through the process runner, whose every git spawn the
 * gateway prepares (git-gateway.ts: the repository fixed at run start, the pinned settings, no
 * nested repository entered). Named, so that a git call is found by its name and cannot be
 * mistaken for another program's.
 */
export function runGitCommand(runner: ProcessRunner, args: readonly string[], options?: RunOptions): Promise<RunResult> {
  return runner.run('git', args, options);
}

/** As runGitCommand, for a git command whose output is read as it comes. */
export function startGitCommand(runner: ProcessRunner, args: readonly string[], options?: StartOptions): ProcessHandle {
  return runner.start('git', args, options);
}
