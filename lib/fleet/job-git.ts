// The git side of a fleet job: the bot identity, the issue's branch (`ralph/issue-<n>`, continued
// from origin when it is there), the job's work committed and pushed, and the run's state carried
// from one job to the next.
//
// How the state is kept: the run's files under .ralph/ (the run record in sessions/, .run_state,
// the breaker, the lifecycle state, the issue's plan and spec; not logs/, which the artifact
// holds, nor the lock) are committed as one parentless commit, built in a private index, and
// force-pushed to the branch `ralph/issue-<n>-state`. The next job fetches it and writes those
// files back before the loop starts, so the loop resumes the same run with its budgets. The
// plan's memory, which ralph keeps beside its ledger outside the project (written from the run's
// memory, never from a file the agent can change), travels in the same commit under `ledger/`
// and goes back beside the next job's ledger, never into the project. The
// branch is deleted when the run ends. The work branch never holds them: the pull request shows
// only the project's changes. Every call is an argv array; no terminal prompt can hang a job.

import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { stageWhatIsLeft } from '../platform/git-leftovers.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { foldPlanMemoryLog } from '../state/plan-memory-file.js';
import type { ProcessRunner, RunResult } from '../platform/process.js';
import { runGitCommand } from '../platform/git-operations.js';

export interface JobGit {
  runner: ProcessRunner;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export const BOT_NAME = 'github-actions[bot]';
export const BOT_EMAIL = '41898282+github-actions[bot]@users.noreply.github.com';

export function workBranchOf(issue: number): string {
  return `ralph/issue-${issue}`;
}

export function stateBranchOf(issue: number): string {
  return `ralph/issue-${issue}-state`;
}

/** Where the plan's memory travels in the state commit: outside .ralph/, never checked out. */
export const PLAN_MEMORY_ENTRY = 'ledger/plan-memory.json';

/** What the carried state leaves out: the logs (in the artifact), the fleet's downloads, locks. */
const NOT_CARRIED = new Set(['logs', 'fleet', '.ralph.lock', '.queue.lock']);

/**
 * On Actions, git asks gh for the token (GH_TOKEN): checkout left none in .git/config, where the
 * agent could read it, and the helper's setting holds no secret itself. It goes in
 * GIT_CONFIG_PARAMETERS (git's `-c` channel), which ralph's git gateway keeps as the run's own
 * settings; GIT_CONFIG_COUNT and its keys it drops with git's other location variables.
 */
export function withGitCredentials(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!env.GH_TOKEN || env.GITHUB_ACTIONS !== 'true') return env;
  const helper = "'credential.helper=' 'credential.helper=!gh auth git-credential'";
  const earlier = env.GIT_CONFIG_PARAMETERS;
  return { ...env, GIT_CONFIG_PARAMETERS: earlier ? `${earlier} ${helper}` : helper };
}

export async function setBotIdentity(git: JobGit): Promise<void> {
  await must(git, ['config', '--local', 'user.name', BOT_NAME]);
  await must(git, ['config', '--local', 'user.email', BOT_EMAIL]);
}

/** Whether origin has the branch (`git ls-remote --exit-code`: 2 when it has not). */
export async function remoteHasBranch(git: JobGit, branch: string): Promise<boolean> {
  const result = await run(git, ['ls-remote', '--exit-code', '--heads', 'origin', `refs/heads/${branch}`]);
  if (result.code === 0) return true;
  if (result.code === 2) return false;
  throw new Error(`git ls-remote origin failed: ${firstLine(result)}`);
}

/** Checks out the issue's branch: origin's copy when it exists, else a new one from the default branch. */
export async function checkoutWorkBranch(git: JobGit, branch: string, defaultBranch: string): Promise<'continued' | 'new'> {
  const exists = await remoteHasBranch(git, branch);
  const base = exists ? branch : defaultBranch;
  await must(git, ['fetch', '--quiet', 'origin', `+refs/heads/${base}:refs/remotes/origin/${base}`]);
  await must(git, ['checkout', '--quiet', '-B', branch, `refs/remotes/origin/${base}`]);
  return exists ? 'continued' : 'new';
}

/**
 * ralph's control files (.ralphrc, the prompt, the agent notes) as the default branch has them:
 * on a continued branch, an earlier job's agent may have committed changes to them, and ralph
 * runs nothing the agent could have changed. A file the default branch lacks is removed. What
 * was put back is committed with the job's work, so the pull request carries no such change.
 */
export async function takeControlFilesFrom(git: JobGit, defaultBranch: string, files: readonly string[]): Promise<string[]> {
  const base = `refs/remotes/origin/${defaultBranch}`;
  await must(git, ['fetch', '--quiet', 'origin', `+refs/heads/${defaultBranch}:${base}`]);
  const taken: string[] = [];
  for (const file of files) {
    const path = `:(literal)${file}`;
    if ((await run(git, ['diff', '--quiet', base, 'HEAD', '--', path])).code === 0) continue;
    const onDefault = (await run(git, ['cat-file', '-e', `${base}:${file}`])).code === 0;
    if (onDefault) await must(git, ['checkout', base, '--', path]);
    else await must(git, ['rm', '--quiet', '--force', '--', path]);
    taken.push(file);
  }
  return taken;
}

/** The commit checked out. */
export async function requireHeadCommit(git: JobGit): Promise<string> {
  return (await must(git, ['rev-parse', '--verify', 'HEAD^{commit}'])).trim();
}

/** Where the agent may not write unless the workflow opted in: what a push there would run on GitHub. */
export const HELD_BACK_DIR = '.github';

export interface CommitWorkOptions {
  /** The commit the job started from: commits the agent made since are folded into the job's one commit. */
  since: string;
  /** The job's branch (`ralph/issue-<n>`): the commit goes there and HEAD names it again, whatever the agent checked out. */
  branch: string;
  /**
   * `.github/` of the starting commit as readHeldTree listed it when the job started: changes
   * there are left out of the commit (kept in the working tree, not pushed). Undefined: the
   * workflow opted in to the agent's workflow changes.
   */
  heldTree: string | undefined;
  /** The index's entries under .ralph/ as readOwnEntries listed them when the job started: the commit holds these. */
  ownEntries: string;
}

/** ralph's own folder: nothing the agent changed or staged there is the job's work. */
const OWN_DIR = '.ralph';
const OWN = `:(literal)${OWN_DIR}`;

/**
 * The index's entries under .ralph/ when the job starts (the control files taken from the
 * default branch among them), as `git ls-files --stage` lists them: the job's commit holds these,
 * not what the agent staged there since (a prompt of its own, a file of its own).
 */
export async function readOwnEntries(git: JobGit): Promise<string> {
  const listing = await must(git, ['ls-files', '--stage', '-z', '--', OWN]);
  if (listing.includes('\uFFFD')) throw new Error(`a file name under ${OWN_DIR}/ in the index is not UTF-8`);
  return listing;
}

// `.github` in any case: a folder of another case is held back too (`.GITHUB/workflows/` lands
// in `.github/workflows/` in a checkout on a case-insensitive disk).
const HELD = `:(icase,literal)${HELD_BACK_DIR}`;

/**
 * `.github/` of `commit` (each top-level folder of that name in any case), as `git ls-tree`
 * lists its files, read when the job starts. From then on the agent can make git read that
 * commit as holding other trees (an object file rewritten with another's bytes, a replace ref):
 * the hold-back puts these entries back instead of asking git again what the commit holds, and
 * origin, which has the commit, gets nothing of them.
 */
export async function readHeldTree(git: JobGit, commit: string): Promise<string> {
  // ls-tree takes no case-insensitive pathspec: the top level's names say which there are.
  const top = await must(git, ['ls-tree', '-z', '--full-tree', '--name-only', commit]);
  const held = top.split('\0').filter((name) => name.toLowerCase() === HELD_BACK_DIR);
  if (held.length === 0) return '';
  const listing = await must(git, ['ls-tree', '-r', '-z', '--full-tree', commit, '--', ...held.map((name) => `:(literal)${name}`)]);
  // Names are handed back to git as text: one that is no UTF-8 would come back as another.
  if (listing.includes('\uFFFD')) throw new Error(`a file name under ${HELD_BACK_DIR}/ of ${commit} is not UTF-8`);
  return listing;
}

export interface CommittedWork {
  committed: boolean;
  /** The files under .github/ whose changes were left out. */
  heldBack: string[];
}

/**
 * Commits what the job changed outside .ralph/ since `since` as one commit (the message on
 * stdin) on the job's branch, which HEAD names again: a branch the agent checked out is not the
 * one the pull request is opened from (the lifecycle pushes HEAD's branch), nor pushed. The
 * agent's own commits are data: they are folded into this one, whose one parent is `since`, so
 * no commit of theirs reaches origin, whatever merge or cherry-pick they left half done (git's
 * own commit would take a parent or an author from it). .ralph/, and with a held tree
 * `.github/`, are made what the job found there last, after everything else is staged, so
 * nothing the agent staged there and nothing `git add` does can bring a change there in.
 */
export async function commitWork(git: JobGit, message: string, options: CommitWorkOptions): Promise<CommittedWork> {
  const branch = `refs/heads/${options.branch}`;
  await must(git, ['symbolic-ref', 'HEAD', branch]);
  await must(git, ['update-ref', branch, options.since]);
  const staging = await stageWhatIsLeft(git, [OWN_DIR]);
  if (staging) throw new Error(staging.message);
  await putBack(git, OWN, OWN_DIR, options.ownEntries, options.since.length);
  const heldBack = options.heldTree === undefined ? [] : await holdBack(git, options.heldTree, options.since.length);
  const tree = (await must(git, ['write-tree'])).trim();
  if (tree === (await must(git, ['rev-parse', '--verify', `${options.since}^{tree}`])).trim()) return { committed: false, heldBack };
  const commit = (await must(git, ['commit-tree', tree, '-p', options.since, '-F', '-'], message)).trim();
  await must(git, ['update-ref', branch, commit, options.since]);
  return { committed: true, heldBack };
}

/**
 * The index under .github/ made what `heldTree` lists (the working tree keeps the agent's
 * version); the files there that differ from it or are new, ignored or not (the agent writes the
 * ignore rules). The comparison hashes the working tree's files: it reads no object the agent
 * could have rewritten. `hexLength`: the length of the repository's object ids.
 */
async function holdBack(git: JobGit, heldTree: string, hexLength: number): Promise<string[]> {
  await putBack(git, HELD, HELD_BACK_DIR, heldTree, hexLength);
  const changed = await must(git, ['diff', '--name-only', '-z', '--no-renames', '--', HELD]);
  const added = await must(git, ['ls-files', '--others', '-z', '--', HELD]);
  return [...new Set(`${changed}\0${added}`.split('\0').filter(Boolean))].sort();
}

/**
 * The index under `pathspec` made what `listing` lists (`git ls-tree -r` or `ls-files --stage`
 * lines). The removal of `dir` itself comes first, whatever the index holds there: it drops the
 * index's tree cache of that folder, which the agent can write and which write-tree would take
 * as the folder's tree without looking at the entries.
 */
async function putBack(git: JobGit, pathspec: string, dir: string, listing: string, hexLength: number): Promise<void> {
  await must(git, ['rm', '-r', '-q', '--force', '--cached', '--ignore-unmatch', '--', pathspec]);
  await must(git, ['update-index', '-z', '--index-info'], `0 ${'0'.repeat(hexLength)}\t${dir}\0${listing}`);
}

/** The job's commits since `since` as a git bundle at `path` (for the artifact when a push failed). */
export async function writeBundle(git: JobGit, since: string, path: string): Promise<boolean> {
  return (await run(git, ['bundle', 'create', '--quiet', path, `${since}..HEAD`])).code === 0;
}

export async function pushHead(git: JobGit, branch: string): Promise<void> {
  await must(git, ['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], undefined, 120_000);
}

/** Pushes the run's state files (and the plan's memory, `planMemoryFile`) as the state branch (replacing the last job's). */
export async function pushStateBranch(git: JobGit, ralphDir: string, branch: string, note: string, planMemoryFile?: string): Promise<void> {
  const files = listCarriedFiles(ralphDir).map((file) => relative(git.cwd, file));
  const scratch = mkdtempSync(join(tmpdir(), 'ralph-fleet-index-'));
  const indexed = { ...git, env: { ...git.env, GIT_INDEX_FILE: join(scratch, 'index') } };
  try {
    if (files.length > 0) await must(indexed, ['add', '--force', '--', ...files.map((file) => `:(literal)${file}`)]);
    if (planMemoryFile && isRegularFile(planMemoryFile)) {
      // The changes logged beside it go with it, folded in.
      foldPlanMemoryLog(planMemoryFile, () => undefined);
      const blob = (await must(git, ['hash-object', '-w', '--', planMemoryFile])).trim();
      await must(indexed, ['update-index', '--add', '--cacheinfo', `100644,${blob},${PLAN_MEMORY_ENTRY}`]);
    }
    const tree = (await must(indexed, ['write-tree'])).trim();
    const commit = (await must(git, ['commit-tree', tree, '-F', '-'], `${note}\n`)).trim();
    await must(git, ['push', '--quiet', '--force', 'origin', `${commit}:refs/heads/${branch}`], undefined, 120_000);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Writes the state branch's files back into the project, and its plan's memory to
 * `planMemoryFile` (beside this job's ledger); false when origin has no such branch.
 */
export async function restoreRunState(git: JobGit, branch: string, planMemoryFile?: string): Promise<boolean> {
  if (!(await remoteHasBranch(git, branch))) return false;
  await must(git, ['fetch', '--quiet', 'origin', `+refs/heads/${branch}:refs/remotes/origin/${branch}`]);
  const scratch = mkdtempSync(join(tmpdir(), 'ralph-fleet-index-'));
  const indexed = { ...git, env: { ...git.env, GIT_INDEX_FILE: join(scratch, 'index') } };
  try {
    await must(indexed, ['read-tree', `refs/remotes/origin/${branch}`]);
    const memory = await run(git, ['cat-file', 'blob', `refs/remotes/origin/${branch}:${PLAN_MEMORY_ENTRY}`]);
    if (memory.code === 0) {
      if (planMemoryFile) {
        mkdirSync(dirname(planMemoryFile), { recursive: true, mode: 0o700 });
        writeFileAtomic(planMemoryFile, memory.stdout, { mode: 0o600 });
      }
      await must(indexed, ['update-index', '--force-remove', '--', PLAN_MEMORY_ENTRY]);
    }
    await must(indexed, ['checkout-index', '--all', '--force']);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return true;
}

export async function deleteRemoteBranch(git: JobGit, branch: string): Promise<void> {
  if (await remoteHasBranch(git, branch)) await must(git, ['push', '--quiet', 'origin', '--delete', `refs/heads/${branch}`]);
}

function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

// Regular files only: a symlink or a hard link the agent left under .ralph/ is not carried.
function listCarriedFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const name of names.sort()) {
    if (NOT_CARRIED.has(name) || name.includes('.tmp')) continue;
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) files.push(...listCarriedFiles(path));
    // One name only: a hard link to a file outside .ralph/ would carry that file to origin.
    else if (stat.isFile() && stat.nlink === 1) files.push(path);
  }
  return files;
}

async function must(git: JobGit, args: string[], input?: string, timeoutMs = 60_000): Promise<string> {
  const result = await run(git, args, input, timeoutMs);
  if (result.code !== 0) throw new Error(`git ${args[0]} failed: ${firstLine(result)}`);
  return result.stdout;
}

function run(git: JobGit, args: string[], input?: string, timeoutMs = 60_000): Promise<RunResult> {
  return runGitCommand(git.runner, args, { cwd: git.cwd, env: { ...git.env, GIT_TERMINAL_PROMPT: '0' }, input, timeoutMs });
}

function firstLine(result: RunResult): string {
  if (result.spawnError) return result.spawnError.message;
  return (
    `${result.stderr}\n${result.stdout}`
      .split(/\r?\n/)
      .map((line) => line.trim())
      .find(Boolean) ?? `exit code ${result.code}`
  );
}
