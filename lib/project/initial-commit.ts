// The first commit of a new Ralph project (ralph-setup). Works without a configured git
// identity: the commit is then made with a one-off identity (GIT_AUTHOR_*/GIT_COMMITTER_* for
// that one command, nothing written to any git config) and the caller warns the user, so
// setup never fails halfway.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessRunner, RunResult } from '../platform/process.js';
import { runGitCommand } from '../platform/git-operations.js';

export const INITIAL_COMMIT_MESSAGE = 'Initial Ralph project setup';
export const FALLBACK_IDENTITY = { name: 'Ralph Setup', email: 'ralph-setup@localhost' } as const;

export interface InitialCommitOptions {
  projectDir: string;
  /** Files to stage when the repository already existed (relative paths). */
  files: readonly string[];
  runner: ProcessRunner;
  env: NodeJS.ProcessEnv;
}

export type InitialCommitResult =
  | { kind: 'committed'; initialized: boolean; usedFallbackIdentity: boolean }
  | { kind: 'nothing-to-commit'; initialized: boolean }
  | { kind: 'git-missing' }
  | { kind: 'failed'; step: string; message: string };

export async function createInitialCommit(options: InitialCommitOptions): Promise<InitialCommitResult> {
  const git = (args: readonly string[], env: NodeJS.ProcessEnv = options.env) =>
    runGitCommand(options.runner, args, { cwd: options.projectDir, env, timeoutMs: 60_000 });
  const initialized = !existsSync(join(options.projectDir, '.git'));
  if (initialized) {
    const init = await git(['init', '-q']);
    if (init.spawnError?.code === 'ENOENT') return { kind: 'git-missing' };
    if (init.code !== 0) return failed('git init', init);
  }
  // A fresh repository gets everything (as the Bash tool's `git add .`); an existing one only
  // the files setup wrote, so the user's unrelated work (staged or not) stays out of it.
  // Files the user's .gitignore excludes (say .ralphrc) stay out: `git add` would refuse them.
  const ignored = initialized || options.files.length === 0 ? new Set<string>() : await listIgnored(git, options.files);
  const files = options.files.filter((file) => !ignored.has(file));
  const pathspec = initialized ? [] : ['--', ...files];
  if (!initialized && files.length === 0) return { kind: 'nothing-to-commit', initialized };
  const add = await git(initialized ? ['add', '-A'] : ['add', ...pathspec]);
  if (add.spawnError?.code === 'ENOENT') return { kind: 'git-missing' };
  if (add.code !== 0) return failed('git add', add);
  const staged = await git(['diff', '--cached', '--quiet', ...pathspec]);
  if (staged.code === 0) return { kind: 'nothing-to-commit', initialized };
  const hasIdentity = (await git(['var', 'GIT_AUTHOR_IDENT'])).code === 0 && (await git(['var', 'GIT_COMMITTER_IDENT'])).code === 0;
  // Through the environment rather than `-c user.name=…`: GIT_AUTHOR_* variables (even empty
  // ones) take precedence over config, and nothing is written to any git config.
  const identityEnv = hasIdentity
    ? {}
    : {
        GIT_AUTHOR_NAME: FALLBACK_IDENTITY.name,
        GIT_AUTHOR_EMAIL: FALLBACK_IDENTITY.email,
        GIT_COMMITTER_NAME: FALLBACK_IDENTITY.name,
        GIT_COMMITTER_EMAIL: FALLBACK_IDENTITY.email,
      };
  const commit = await git(['commit', '-q', '-m', INITIAL_COMMIT_MESSAGE, ...pathspec], { ...options.env, ...identityEnv });
  if (commit.code !== 0) return failed('git commit', commit);
  return { kind: 'committed', initialized, usedFallbackIdentity: !hasIdentity };
}

async function listIgnored(git: (args: readonly string[]) => Promise<RunResult>, files: readonly string[]): Promise<Set<string>> {
  const result = await git(['check-ignore', '--', ...files]);
  return new Set(result.code === 0 ? result.stdout.split(/\r?\n/).filter(Boolean) : []);
}

function failed(step: string, result: RunResult): InitialCommitResult {
  const message = (result.stderr || result.stdout).trim().split(/\r?\n/)[0] ?? '';
  return { kind: 'failed', step, message: message || `exit code ${result.code}` };
}
