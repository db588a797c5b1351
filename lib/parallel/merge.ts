// The merge queue's steps, one unit at a time, in the main worktree: the unit's leftovers
// committed on its branch, its changes to ralph's own files (.ralph/, .ralphrc) taken back out
// by one more commit on that branch, a backup ref of both tips, then a fast-forward or a merge
// commit. A merge that conflicts is aborted (the run branch is left exactly as it was) and the
// conflict is taken to the unit's worktree instead. Nothing here resets, force-checks-out or
// deletes a branch that is not merged: no step can discard a commit.

import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { commitWhatIsLeft } from '../platform/git-leftovers.js';
import { firstForgedObject } from '../platform/git-object-check.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import type { RalphPaths } from '../state/paths.js';
import { gitMessageLine, runGit, runGitReadingNoFiles, type GitContext } from './git.js';
import { isRalphOwnPath, parsePorcelainPaths } from './worktrees.js';
import type { UnitRecord } from './run-state.js';

export type LandResult = { kind: 'merged'; how: MergeHow; warnings: string[] } | { kind: 'conflict'; files: string[] } | { kind: 'failed'; message: string };

/**
 * The unit's branch made ready to land, outside the merge queue (it touches only the unit's
 * worktree and branch, so units do it side by side): its leftovers committed, its .ralph/
 * kept out.
 */
export async function prepareUnitBranch(git: GitContext, dir: string, unit: UnitRecord, runBranch: string): Promise<MergeStep> {
  const item = unit.lines[0]?.replace(/^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[[ xX]\][ \t]*/, '').trim() || unit.item;
  const leftovers = await commitUnitLeftovers(git, dir, `ralph: ${item}\n\nLeft in the worktree of parallel unit ${unit.slug}.\n`);
  if (!leftovers.ok) return { ok: false, message: `its work could not be committed (${leftovers.message})` };
  return keepOwnFilesOut(git, dir, runBranch);
}

/**
 * One turn of the merge queue for a unit whose branch is ready (prepareUnitBranch): backup
 * refs, the merge; then (merged) `afterMerge` (default: the item ticked). `onMerged` runs as
 * soon as the merge is in; the caller records the unit merged only once the turn returns, so a
 * crash between the merge and the tick leaves it merging, and the next turn finds its branch
 * already merged and ticks it. The unit's worktree and branch are removed after the turn
 * (removeMergedUnit), while the next unit merges.
 */
export async function landUnit(
  git: GitContext,
  paths: RalphPaths,
  run: { runId: string; runBranch: string },
  unit: UnitRecord,
  onMerged: (how: string) => void,
  afterMerge: () => Promise<MergeStep> = () => tickUnitItem(git, paths, unit),
): Promise<LandResult> {
  const message = `Merge parallel unit ${unit.slug}: ${unit.item}\n\nBranch ${unit.branch} of ralph --parallel run ${run.runId}.\n`;
  const merged = await mergeUnitBranch(git, paths.projectDir, run.runId, unit, run.runBranch, message);
  if (merged.kind !== 'merged') return merged;
  onMerged(merged.how);
  const warnings: string[] = [];
  const after = await afterMerge();
  if (!after.ok) warnings.push(`after its merge: ${after.message}`);
  return { kind: 'merged', how: merged.how, warnings };
}

export const BACKUP_REF_ROOT = 'refs/ralph/backups';
const OWN_FILES = ['.ralph', '.ralphrc'];

export type MergeStep = { ok: true } | { ok: false; message: string };

/** Commits what the unit left in its worktree, ralph's own files aside; concludes a merge in progress. */
export async function commitUnitLeftovers(git: GitContext, dir: string, message: string): Promise<MergeStep> {
  const result = await commitWhatIsLeft({ runner: git.runner, cwd: dir, env: git.env }, message, OWN_FILES);
  return result.kind === 'failed' ? { ok: false, message: result.message } : { ok: true };
}

/**
 * When the unit's branch changed .ralph/ or .ralphrc since it parted from the run branch (an
 * agent that commits everything, its plan included), one commit sets them back, so the merge
 * never carries a unit's plan or state and the units' plans never conflict.
 */
export async function keepOwnFilesOut(git: GitContext, dir: string, runBranch: string): Promise<MergeStep> {
  // `a...b`: from where they parted; the merge base itself is asked only when there is something to set back.
  // Two commits compared, by name only: no file of the worktree is read.
  const changed = await runGitReadingNoFiles(git, dir, ['diff', '--name-only', '-z', '--no-renames', `refs/heads/${runBranch}...HEAD`, '--', ...OWN_FILES]);
  if (!changed.ok) return { ok: false, message: `git diff: ${gitMessageLine(changed)}` };
  if (changed.stdout === '') return { ok: true };
  const base = await runGit(git, dir, ['merge-base', 'HEAD', `refs/heads/${runBranch}`]);
  if (!base.ok) return { ok: false, message: `git merge-base: ${gitMessageLine(base)}` };
  const from = base.stdout.trim();
  // The unit's worktree shares the project's objects, which its agent could rewrite: those read here must hash to their ids.
  const forged = await firstForgedObject({ runner: git.runner, cwd: dir, env: git.env }, from, OWN_FILES).catch((error: unknown) => error as Error);
  if (forged instanceof Error) return { ok: false, message: forged.message };
  if (forged !== undefined)
    return { ok: false, message: `the commit where the branches parted was changed since: object ${forged} does not hold what its id says` };
  // The paths go on stdin: they are the agent's file names.
  const restore = await runGit(
    git,
    dir,
    ['restore', `--source=${from}`, '--staged', '--worktree', '--pathspec-from-file=-', '--pathspec-file-nul'],
    changed.stdout,
  );
  if (!restore.ok) return { ok: false, message: `git restore: ${gitMessageLine(restore)}` };
  const commit = await runGit(git, dir, ['commit', '-q', '--no-verify', '-F', '-'], "ralph: keep this unit's .ralph/ out of the merge\n");
  return commit.ok ? { ok: true } : { ok: false, message: `git commit: ${gitMessageLine(commit)}` };
}

/**
 * Sets ralph's tracked files in the unit's worktree (its copy of the plan and prompt) back to
 * its branch's, so a merge of the run branch into it is not refused for "local changes".
 */
export async function resetOwnSeedFiles(git: GitContext, dir: string): Promise<MergeStep> {
  const changed = await runGit(git, dir, ['diff', '--name-only', '-z', '--no-renames', 'HEAD', '--', ...OWN_FILES]);
  if (!changed.ok) return { ok: false, message: `git diff: ${gitMessageLine(changed)}` };
  if (changed.stdout === '') return { ok: true };
  const restore = await runGit(
    git,
    dir,
    ['restore', '--source=HEAD', '--staged', '--worktree', '--pathspec-from-file=-', '--pathspec-file-nul'],
    changed.stdout,
  );
  return restore.ok ? { ok: true } : { ok: false, message: `git restore: ${gitMessageLine(restore)}` };
}

export type MergeHow = 'fast-forward' | 'merge-commit' | 'already-merged';

export type MergeResult = { kind: 'merged'; how: MergeHow } | { kind: 'conflict'; files: string[] } | { kind: 'failed'; message: string };

/** Merges the unit's branch into the run branch checked out in `projectDir`, after a backup ref of both tips. */
export async function mergeUnitBranch(
  git: GitContext,
  projectDir: string,
  runId: string,
  unit: UnitRecord,
  runBranch: string,
  message: string,
): Promise<MergeResult> {
  // The branch checked out, the commits of both tips, and where the two parted, asked side by
  // side: the unit's tip when it is merged already, the run branch's when the unit's branch only
  // adds to it (a fast-forward); none when they share no history.
  const [head, tips, parted] = await Promise.all([
    runGit(git, projectDir, ['symbolic-ref', '--short', '-q', 'HEAD']),
    runGit(git, projectDir, ['rev-parse', 'HEAD', `refs/heads/${unit.branch}`]),
    runGit(git, projectDir, ['merge-base', 'HEAD', `refs/heads/${unit.branch}`]),
  ]);
  if (!head.ok || head.stdout.trim() !== runBranch) {
    return {
      kind: 'failed',
      message: `the main worktree is no longer on ${runBranch}; switch back to it (git switch ${runBranch}) and run ralph --parallel again`,
    };
  }
  if (!tips.ok) throw new Error(`git rev-parse failed: ${gitMessageLine(tips)}`);
  const [before = '', tip = ''] = tips.stdout.trim().split('\n');
  const base = parted.ok ? parted.stdout.trim() : undefined;
  if (base === tip) return { kind: 'merged', how: 'already-merged' };
  // The runner numbers each attempt before it starts (unit.merge_attempts); a backup ref is
  // created, never moved.
  const attempt = Math.max(1, unit.merge_attempts);
  const backup = `${BACKUP_REF_ROOT}/${runId}/${unit.slug}`;
  const refs = await runGit(
    git,
    projectDir,
    ['update-ref', '--stdin'],
    `create ${backup}/${attempt}-run-branch ${before}\ncreate ${backup}/${attempt}-unit-branch ${tip}\n`,
  );
  if (!refs.ok) return { kind: 'failed', message: `git update-ref (backup refs): ${gitMessageLine(refs)}` };
  // A fast-forward is tried only where one can be: after the run branch moved on, it would fail.
  if (base === undefined || base === before) {
    const ff = await runGit(git, projectDir, ['merge', '--ff-only', '-q', tip]);
    if (ff.ok) return { kind: 'merged', how: 'fast-forward' };
  }
  const merge = await runGit(git, projectDir, ['merge', '--no-ff', '--no-commit', '-q', tip]);
  if (!merge.ok) {
    const files = await listConflictedFiles(git, projectDir);
    // Leaves the run branch and the files exactly as before this merge: no marker ever lands.
    const abort = await runGit(git, projectDir, ['merge', '--abort']);
    if (!abort.ok) return { kind: 'failed', message: `git merge --abort: ${gitMessageLine(abort)}` };
    return files.length > 0 ? { kind: 'conflict', files } : { kind: 'failed', message: `git merge: ${gitMessageLine(merge)}` };
  }
  const commit = await runGit(git, projectDir, ['commit', '-q', '--no-verify', '-F', '-'], message);
  if (!commit.ok) {
    await runGit(git, projectDir, ['merge', '--abort']);
    return { kind: 'failed', message: `git commit: ${gitMessageLine(commit)}` };
  }
  return { kind: 'merged', how: 'merge-commit' };
}

export async function listConflictedFiles(git: GitContext, dir: string): Promise<string[]> {
  const result = await runGit(git, dir, ['diff', '--name-only', '-z', '--diff-filter=U']);
  return result.stdout.split('\0').filter(Boolean);
}

export type ConflictStart = { kind: 'clean' } | { kind: 'conflicted'; files: string[] } | { kind: 'failed'; message: string };

/** Merges the run branch into the unit's branch in its worktree, leaving git's markers where they conflict. */
export async function mergeRunBranchIntoUnit(git: GitContext, dir: string, runBranch: string, message: string): Promise<ConflictStart> {
  const reset = await resetOwnSeedFiles(git, dir);
  if (!reset.ok) return { kind: 'failed', message: reset.message };
  const merge = await runGit(git, dir, ['merge', '--no-ff', '--no-commit', '-q', `refs/heads/${runBranch}`]);
  if (merge.ok) {
    const commit = await commitUnitLeftovers(git, dir, message);
    return commit.ok ? { kind: 'clean' } : { kind: 'failed', message: commit.message };
  }
  const files = await listConflictedFiles(git, dir);
  return files.length > 0 ? { kind: 'conflicted', files } : { kind: 'failed', message: `git merge: ${gitMessageLine(merge)}` };
}

/** After a conflict pass: the merge is concluded and no conflict marker is left in the files it named. */
export async function isConflictResolved(git: GitContext, dir: string, files: string[]): Promise<boolean> {
  if ((await runGit(git, dir, ['rev-parse', '-q', '--verify', 'MERGE_HEAD'])).ok) return false;
  if ((await listConflictedFiles(git, dir)).length > 0) return false;
  return !hasConflictMarkers(dir, files);
}

/** Whether any of the files still holds a line git's conflict markers start. */
export function hasConflictMarkers(dir: string, files: string[]): boolean {
  return files.some((file) => {
    try {
      return /^(<<<<<<<|>>>>>>>)( |$)/m.test(readFileSync(join(dir, file), 'utf8'));
    } catch {
      return false;
    }
  });
}

/**
 * Ticks the unit's item in the run branch's plan, with `how.note` after it (`(in review: <url>)`);
 * commits the tick when the plan is tracked, unless `how.commit` is false.
 */
export async function tickUnitItem(git: GitContext, paths: RalphPaths, unit: UnitRecord, how: { note?: string; commit?: boolean } = {}): Promise<MergeStep> {
  const text = readFileSync(paths.fixPlan, 'utf8');
  const lines = text.split('\n');
  const wanted = unit.lines[0]?.replace(/\r$/, '');
  const done = (line: string) => `${line.replace('[ ]', '[x]')}${how.note ? ` ${how.note}` : ''}`;
  let index = lines.findIndex((line) => line.replace(/\r$/, '') === wanted);
  if (index < 0) index = lines.findIndex((line) => /\[ \]/.test(line) && line.includes(unit.item));
  // Ticked already (by a turn a crash cut short before its commit): only the commit is left.
  const ticked = wanted === undefined ? -1 : lines.findIndex((line) => line.replace(/\r$/, '') === done(wanted));
  if (index < 0 && ticked < 0) return { ok: false, message: `the item is no longer in ${relative(paths.projectDir, paths.fixPlan)}; tick it yourself` };
  if (index >= 0) {
    const cr = lines[index]!.endsWith('\r') ? '\r' : '';
    lines[index] = `${done(lines[index]!.replace(/\r$/, ''))}${cr}`;
    writeFileAtomic(paths.fixPlan, lines.join('\n'));
  }
  if (how.commit === false) return { ok: true };
  const rel = relative(paths.projectDir, paths.fixPlan);
  // Nothing to commit: the tick is committed already, or the plan is not tracked (git diff
  // shows no untracked file).
  if ((await runGit(git, paths.projectDir, ['diff', '--quiet', 'HEAD', '--', rel])).ok) return { ok: true };
  const commit = await runGit(git, paths.projectDir, ['commit', '-q', '--no-verify', '-F', '-', '--', rel], `ralph: tick "${unit.item}" in the plan\n`);
  return commit.ok ? { ok: true } : { ok: false, message: `git commit: ${gitMessageLine(commit)}` };
}

/**
 * After the merge: the unit's worktree removed (when nothing but ralph's own and ignored files
 * is left in it) and its branch deleted with `git branch -d`, which refuses an unmerged one
 * (kept with `keepBranch`: a pull request's).
 */
export async function removeMergedUnit(git: GitContext, projectDir: string, unit: UnitRecord, keepBranch = false): Promise<MergeStep> {
  const dir = join(projectDir, unit.worktree);
  const status = await runGit(git, dir, ['status', '--porcelain=v1', '-z']);
  if (status.ok) {
    const left = parsePorcelainPaths(status.stdout).filter((path) => !isRalphOwnPath(path));
    if (left.length > 0) return { ok: false, message: `its worktree still holds ${left.join(', ')}; kept at ${unit.worktree}` };
    // Only ralph's files and ignored ones are left: --force lets git remove them with the folder.
    const removed = await runGitReadingNoFiles(git, projectDir, ['worktree', 'remove', '--force', dir]);
    if (!removed.ok) return { ok: false, message: `git worktree remove: ${gitMessageLine(removed)}` };
  } else {
    await runGit(git, projectDir, ['worktree', 'prune']);
  }
  if (keepBranch) return { ok: true };
  const deleted = await runGitReadingNoFiles(git, projectDir, ['branch', '-d', '-q', unit.branch]);
  return deleted.ok ? { ok: true } : { ok: false, message: `git branch -d: ${gitMessageLine(deleted)}` };
}

/**
 * How the run branch moved on from `base`, the commit of it a unit's conflict pass merged
 * ("main moved from a1b2c3d to e4f5a6b"); undefined when it did not.
 */
export async function describeRunBranchMove(git: GitContext, projectDir: string, runBranch: string, base: string | undefined): Promise<string | undefined> {
  const tip = await runGit(git, projectDir, ['rev-parse', `refs/heads/${runBranch}`]);
  if (base === undefined || !tip.ok || tip.stdout.trim() === base) return undefined;
  const short = async (sha: string) => (await runGit(git, projectDir, ['rev-parse', '--short', sha])).stdout.trim() || sha.slice(0, 7);
  return `${runBranch} moved from ${await short(base)} to ${await short(tip.stdout.trim())}`;
}
