// The conflict pass of a unit whose merge conflicts: the task its agent is given (the run
// branch is merged into the unit's, git's markers left in the files), and, once its loop has
// ended, whether the conflict is resolved and committed, or why not.

import { EXIT } from '../errors.js';
import type { GitContext } from './git.js';
import { commitUnitLeftovers, hasConflictMarkers, isConflictResolved } from './merge.js';
import type { ParallelRunState } from './run-state.js';

/** The plan lines of the pass: resolve the conflicts in `files`, keeping what both sides were for. */
export function conflictTask(run: Pick<ParallelRunState, 'run_branch' | 'units'>, files: string[]): string[] {
  const mergedItems = run.units.filter((u) => u.state === 'merged').map((u) => u.item);
  return [
    `- [ ] Resolve the merge conflicts in: ${files.join(', ')}`,
    `  - ${run.run_branch} was merged into this branch and conflicts with it; git's conflict markers are in those files.`,
    `  - The other side was for: ${mergedItems.length > 0 ? mergedItems.join('; ') : 'changes made on ' + run.run_branch}.`,
    '  - Keep what both sides were for, remove every conflict marker, make the tests pass, then tick this item.',
  ];
}

/**
 * After the pass's loop: the merge concluded with what the agent left (undefined), or why the
 * unit needs review. Markers left: nothing is committed, the worktree stays mid-merge for
 * whoever reviews it.
 */
export async function concludeConflictPass(
  git: GitContext,
  dir: string,
  merge: { runBranch: string; slug: string; files: string[] },
  loop: { exitCode: number; exitReason: string },
): Promise<string | undefined> {
  const markersLeft = hasConflictMarkers(dir, merge.files);
  const committed =
    loop.exitCode === EXIT.ok && !markersLeft
      ? await commitUnitLeftovers(git, dir, `Merge ${merge.runBranch} into parallel unit ${merge.slug}\n\nConflicts resolved by the unit's agent.\n`)
      : { ok: false as const, message: '' };
  if (committed.ok && (await isConflictResolved(git, dir, merge.files))) return undefined;
  if (loop.exitCode !== EXIT.ok) return `the conflict pass stopped (${loop.exitReason})`;
  if (markersLeft) return 'conflict markers are left';
  return `the resolution could not be committed (${committed.ok ? 'conflicts left' : committed.message})`;
}
