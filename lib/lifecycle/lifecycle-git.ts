// The git side of the GitHub issue lifecycle: where the run started (HEAD), what it changed
// since (file names, shortstat, added lines), the branch to open a pull request from, and the
// push. Every call is an argv array; ralph's own .ralph/ files are left out of what is reported.

import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { headCommit, runGitCommand } from '../platform/git-operations.js';
import type { ProcessRunner, RunResult } from '../platform/process.js';
import { firstOutputLine } from '../tasks/external-cli.js';

export interface LifecycleGitContext {
  processRunner: ProcessRunner;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** ralph's control files outside .ralph/ (.ralphrc, a configured prompt), project-relative. */
  controlFiles?: readonly string[];
}

const OWN_FILES = ':(exclude).ralph';

// What is reported leaves out ralph's own files, as the content snapshot does (its tree has none).
function ownFiles(ctx: LifecycleGitContext): string[] {
  return [OWN_FILES, ...(ctx.controlFiles ?? []).map((file) => `:(exclude,literal)${file}`)];
}
const COMMIT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** A commit id as git prints it; anything else (a forged state file) is not used as one. */
export function isCommitId(text: string): boolean {
  return COMMIT_ID.test(text);
}

/** HEAD's commit, or '' outside a repository or before the first commit. */
export async function readHeadSha(ctx: LifecycleGitContext): Promise<string> {
  return (await headCommit({ runner: ctx.processRunner, cwd: ctx.cwd, env: ctx.env })) ?? '';
}

/** Files changed since `since` (committed or not) and new untracked ones, sorted. */
export async function listChangedFiles(since: string, ctx: LifecycleGitContext): Promise<string[]> {
  const base = isCommitId(since) ? since : 'HEAD';
  const [changed, untracked] = await Promise.all([
    git(['diff', '--no-ext-diff', '--no-textconv', '--name-only', '-z', base, '--', '.', ...ownFiles(ctx)], ctx),
    git(['ls-files', '--others', '--exclude-standard', '-z', '--', '.', ...ownFiles(ctx)], ctx),
  ]);
  const names = [changed, untracked].flatMap((r) => (r.code === 0 ? r.stdout.split('\0') : [])).filter(Boolean);
  return [...new Set(names)].sort();
}

/**
 * `git diff --shortstat` from `since` to the content ('' when unknown or unchanged). `content` is
 * the tree of the working tree with its untracked files (the loop's content snapshot): a plain
 * diff against the working tree leaves out every new file the agent did not commit.
 */
export async function readShortstat(since: string, content: string | null, ctx: LifecycleGitContext): Promise<string> {
  if (!isCommitId(since)) return '';
  const result = await git(['diff', '--no-ext-diff', '--no-textconv', '--shortstat', since, ...treeArg(content), '--', '.', ...ownFiles(ctx)], ctx);
  return result.code === 0 ? result.stdout.trim() : '';
}

/** Lines added since `since`, committed or not (new files too, given `content`), as `git diff -U0` prints them. */
export async function readAddedLines(since: string, content: string | null, ctx: LifecycleGitContext): Promise<string> {
  if (!isCommitId(since)) return '';
  const result = await git(['diff', '-U0', '--no-color', '--no-ext-diff', '--no-textconv', since, ...treeArg(content), '--', '.', ...ownFiles(ctx)], ctx);
  return result.code === 0 ? result.stdout : '';
}

/**
 * The working tree with its untracked files as a git tree, built in a temporary index (the
 * user's index is not touched); null when git could not. Once, when the run completes: the
 * loop's own content snapshots write nothing into .git.
 */
export async function writeContentTree(ctx: LifecycleGitContext): Promise<string | null> {
  const located = await git(['rev-parse', '--git-path', 'index'], ctx);
  if (located.code !== 0) return null;
  const realIndex = resolve(ctx.cwd, located.stdout.trim());
  const dir = mkdtempSync(join(tmpdir(), 'ralph-content-'));
  try {
    const index = join(dir, 'index');
    if (existsSync(realIndex)) {
      // A copy with the same mtime keeps git's stat cache valid: only changed files get hashed.
      copyFileSync(realIndex, index);
      const st = statSync(realIndex);
      utimesSync(index, st.atime, st.mtime);
    }
    const indexCtx = { ...ctx, env: { ...ctx.env, GIT_INDEX_FILE: index, GIT_OPTIONAL_LOCKS: '0' } };
    if ((await git(['add', '-A', '--', '.'], indexCtx)).code !== 0) return null;
    const tree = await git(['write-tree'], indexCtx);
    const id = tree.stdout.trim();
    return tree.code === 0 && isCommitId(id) ? id : null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Without a snapshot (none could be taken), the working tree: tracked files only.
function treeArg(content: string | null): string[] {
  return content !== null && isCommitId(content) ? [content] : [];
}

/** The checked-out branch; undefined on a detached HEAD or outside a repository. */
export async function readCurrentBranch(ctx: LifecycleGitContext): Promise<string | undefined> {
  const result = await git(['symbolic-ref', '-q', '--short', 'HEAD'], ctx);
  const branch = result.code === 0 ? result.stdout.trim() : '';
  return branch === '' ? undefined : branch;
}

/**
 * Whether origin has `branch`, asked of origin itself (the remote-tracking refs are the agent's to
 * write); a failure to ask counts as having it, so nothing is pushed on a guess.
 */
export async function originHasBranch(branch: string, ctx: LifecycleGitContext): Promise<boolean> {
  const result = await git(['ls-remote', '--heads', 'origin', `refs/heads/${branch}`], ctx, 60_000);
  return result.code !== 0 || result.stdout.trim() !== '';
}

/** origin's default branch as the local clone knows it (refs/remotes/origin/HEAD), if set. */
export async function readOriginDefaultBranch(ctx: LifecycleGitContext): Promise<string | undefined> {
  const result = await git(['symbolic-ref', '-q', '--short', 'refs/remotes/origin/HEAD'], ctx);
  const name = result.code === 0 ? result.stdout.trim().replace(/^origin\//, '') : '';
  return name === '' ? undefined : name;
}

/**
 * `git push origin <branch>` (to origin's URL as the run started: the git gateway), then the
 * branch tracks origin's, as `push -u` would set it (gh finds the pull request's head by it).
 * git refuses branch names that start with `-`, so it is no flag.
 */
export async function pushBranch(branch: string, ctx: LifecycleGitContext): Promise<{ ok: true } | { ok: false; message: string }> {
  const result = await git(['push', 'origin', `refs/heads/${branch}:refs/heads/${branch}`], ctx, 120_000);
  if (result.code === 0) {
    await git(['update-ref', `refs/remotes/origin/${branch}`, `refs/heads/${branch}`], ctx);
    await git(['branch', `--set-upstream-to=origin/${branch}`, branch], ctx);
    return { ok: true };
  }
  if (result.spawnError) return { ok: false, message: `git could not be started: ${result.spawnError.message}` };
  // git push starts with progress and "To <remote>" lines: the error is the fatal:/error: one.
  const error = result.stderr.split(/\r?\n/).find((line) => /^(fatal|error):/.test(line.trim()));
  return { ok: false, message: error?.trim() ?? firstOutputLine(result) };
}

function git(args: string[], ctx: LifecycleGitContext, timeoutMs = 30_000): Promise<RunResult> {
  // No terminal prompt for credentials: an unattended run must fail, not hang.
  return runGitCommand(ctx.processRunner, args, { cwd: ctx.cwd, env: { ...ctx.env, GIT_TERMINAL_PROMPT: '0' }, timeoutMs });
}
