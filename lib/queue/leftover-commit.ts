// After a queue item's loop ended done: when the loop made no commit of its own, what it left in
// the working tree is committed as `Fix #N: <title>` (the Bash tool's message). The message goes
// on stdin (`git commit -F -`), never in argv: the title is the issue's text.

import { commitWhatIsLeft } from '../platform/git-leftovers.js';
import { headCommit, runGitCommand } from '../platform/git-operations.js';
import type { ProcessRunner } from '../platform/process.js';
import { toPlainTextLine } from '../tasks/task-line.js';

export interface GitOptions {
  runner: ProcessRunner;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export type LeftoverCommitResult =
  | { kind: 'committed' }
  | { kind: 'loop-committed' }
  | { kind: 'nothing-to-commit' }
  | { kind: 'not-a-repository' }
  | { kind: 'failed'; message: string };

/** HEAD's commit, or undefined outside a repository (or before the first commit). */
export const readHead: (git: GitOptions) => Promise<string | undefined> = headCommit;

export function leftoverCommitMessage(issueNumber: number | null, title: string): string {
  const line = toPlainTextLine(title);
  return issueNumber === null ? `Complete queue item: ${line}\n` : `Fix #${issueNumber}: ${line}\n`;
}

export async function commitLeftovers(git: GitOptions, before: string | undefined, message: string): Promise<LeftoverCommitResult> {
  const inside = await runGit(git, ['rev-parse', '--git-dir']);
  if (inside.code !== 0) return { kind: 'not-a-repository' };
  const after = await readHead(git);
  if (after !== undefined && after !== before) return { kind: 'loop-committed' };
  return commitWhatIsLeft(git, message);
}

function runGit(git: GitOptions, args: string[], input?: string) {
  return runGitCommand(git.runner, args, { cwd: git.cwd, env: git.env, input, timeoutMs: 60_000 });
}
