// The one "commit what is left" routine: the queue's leftover commit and a --parallel unit's
// leftovers commit through it, with the same rules, and a ralph-fleet job's work is staged by it
// (stageWhatIsLeft) before the job makes its one commit itself. Everything
// in the work tree is added except the paths the caller leaves out (ralph's own files) and each
// nested repository (the git gateway leaves those out of every `git add`); no hook runs (the
// gateway, and --no-verify besides); the message goes on stdin, never in argv; a merge in
// progress is concluded even when nothing else changed.

import type { ProcessRunner, RunResult } from './process-types.js';
import { runGitCommand } from './git-operations.js';

export interface LeftoverGit {
  runner: ProcessRunner;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface LeftoverFailure {
  kind: 'failed';
  message: string;
}

export type LeftoverCommit = { kind: 'committed' } | { kind: 'nothing-to-commit' } | LeftoverFailure;

export async function commitWhatIsLeft(git: LeftoverGit, message: string, leaveOut: readonly string[] = []): Promise<LeftoverCommit> {
  const staging = await stageWhatIsLeft(git, leaveOut);
  if (staging) return staging;
  const merging = (await run(git, ['rev-parse', '-q', '--verify', 'MERGE_HEAD'])).code === 0;
  const staged = await run(git, ['diff', '--cached', '--quiet', '--no-ext-diff', '--no-textconv']);
  if (staged.code === 0 && !merging) return { kind: 'nothing-to-commit' };
  const commit = await run(git, ['commit', '-q', '--no-verify', '-F', '-'], message);
  return commit.code === 0 ? { kind: 'committed' } : failed('git commit', commit);
}

/**
 * The index made what commitWhatIsLeft commits: every change of the work tree but `leaveOut`
 * and the nested repositories; undefined when staged, else what failed.
 */
export async function stageWhatIsLeft(git: LeftoverGit, leaveOut: readonly string[] = []): Promise<LeftoverFailure | undefined> {
  // git 2.39 fails an add whose exclude pathspec names an ignored path (a project that ignores
  // all of .ralph/). An ignored path adds nothing untracked anyway; what git tracks under it is
  // staged by `add -A` and taken back out by the reset.
  const ignored = await ignoredPaths(git, leaveOut);
  const excluded = leaveOut.filter((path) => !ignored.includes(path));
  const add = await run(git, ['add', '-A', '--', '.', ...excluded.map((path) => `:(exclude,top,literal)${path}`)]);
  if (add.code !== 0) return failed('git add', add);
  if (ignored.length > 0) {
    const reset = await run(git, ['reset', '-q', '--', ...ignored.map((path) => `:(top,literal)${path}`)]);
    if (reset.code !== 0) return failed('git reset', reset);
  }
  return undefined;
}

/** Which of ralph's own paths (constants, never the agent's names) the project's ignore rules cover. */
async function ignoredPaths(git: LeftoverGit, paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  // Exit 1 when none is ignored: only the listed names matter.
  const listed = (await run(git, ['check-ignore', '--', ...paths])).stdout.split(/\r?\n/);
  return paths.filter((path) => listed.includes(path));
}

function run(git: LeftoverGit, args: string[], input?: string): Promise<RunResult> {
  return runGitCommand(git.runner, args, {
    cwd: git.cwd,
    env: { ...git.env, GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', GIT_MERGE_AUTOEDIT: 'no' },
    input,
    timeoutMs: 120_000,
  });
}

function failed(step: string, result: RunResult): LeftoverFailure {
  const line = `${result.stderr}\n${result.stdout}`
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find(Boolean);
  return { kind: 'failed', message: `${step}: ${line ?? `exit code ${result.code}`}` };
}
