// git for `ralph --parallel`: every call an argv array, with the config keys that would run a
// program from the repository (hooks, fsmonitor) switched off, and the results as values.
// Commit messages and item text go on stdin (`-F -`), never in argv.

import type { ProcessRunner, RunResult } from '../platform/process.js';
import { runGitCommand } from '../platform/git-operations.js';

export interface GitContext {
  runner: ProcessRunner;
  env: NodeJS.ProcessEnv;
}

export interface GitResult {
  ok: boolean;
  code: number | null;
  stdout: string;
  stderr: string;
}

// The merges ralph makes between unit branches are its own bookkeeping: they need no signature
// and check none. (That no git call runs a hook, fsmonitor or driver the agent planted is the
// process runner's: lib/platform/git-gateway.ts.)
const MERGE_CONFIG = ['-c', 'commit.gpgSign=false', '-c', 'merge.verifySignatures=false'];

export function runGit(git: GitContext, cwd: string, args: string[], input?: string): Promise<GitResult> {
  return run(git, cwd, args, { input });
}

/**
 * runGit for a call that reads no file of the working tree: one that looks only at refs, commits
 * and trees (`git diff a...b --name-only`, `git branch -d`), or removes a worktree without a look
 * at its files (`git worktree remove --force`). No filter or diff driver can run in it, so the
 * gateway need not list the configuration for one added since the run started (the settings it
 * pins apply as always).
 */
export function runGitReadingNoFiles(git: GitContext, cwd: string, args: string[]): Promise<GitResult> {
  return run(git, cwd, args, { readsNoContent: true });
}

async function run(git: GitContext, cwd: string, args: string[], how: { input?: string; readsNoContent?: boolean }): Promise<GitResult> {
  const result: RunResult = await runGitCommand(git.runner, [...MERGE_CONFIG, ...args], {
    cwd,
    env: { ...git.env, GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', GIT_MERGE_AUTOEDIT: 'no' },
    input: how.input,
    timeoutMs: 120_000,
    ...(how.readsNoContent ? { gitReadsNoContent: true } : {}),
  });
  return { ok: result.code === 0, code: result.code, stdout: result.stdout, stderr: result.stderr };
}

/** Runs git and returns its trimmed stdout; throws with git's own first line when it fails. */
export async function readGit(git: GitContext, cwd: string, args: string[]): Promise<string> {
  const result = await runGit(git, cwd, args);
  if (!result.ok) throw new Error(`git ${args[0]} failed: ${gitMessageLine(result)}`);
  return result.stdout.trim();
}

export function gitMessageLine(result: Pick<GitResult, 'stdout' | 'stderr' | 'code'>): string {
  return (
    `${result.stderr}\n${result.stdout}`
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find(Boolean) ?? `exit code ${result.code}`
  );
}
