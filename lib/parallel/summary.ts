// What `ralph --parallel` prints: the units and their order for --dry-run, and at the end each
// unit's outcome, with the commands to look at the work of a unit that was not merged.

import { orderUnits, stripItemMark } from './plan-units.js';
import { hasLanded, type ParallelRunState, type UnitRecord } from './run-state.js';
import { finishPullRequestByHand, pullRequestBase } from './pull-request.js';

interface ShownUnit {
  slug: string;
  item: string;
  lines: string[];
  after: string[];
}

export function describeDryRunUnits(units: ShownUnit[], parallel: number): string {
  if (units.length === 0) return 'Parallel run: fix_plan.md has no open item; nothing would run\n';
  const lines = [`Parallel run (dry run): ${units.length} unit(s), ${parallel} at a time`];
  units.forEach((unit, index) => {
    const after = unit.after.length > 0 ? ` (after ${unit.after.join(', ')})` : '';
    lines.push(`  ${index + 1}. ${unit.slug}: ${stripItemMark(unit.lines[0] ?? unit.item).trim()}${after}`);
  });
  lines.push(
    `Order: ${orderUnits(units)
      .map((wave) => wave.join(', '))
      .join(' → ')}`,
  );
  return `${lines.join('\n')}\n`;
}

export interface OutcomeContext {
  /** A signal stopped the run: units still running were interrupted. */
  interrupted: boolean;
  /** The command that takes the run up again (`ralph --parallel 3`). */
  rerun: string;
  /** The command that abandons the run, when there is one. */
  abandon?: string;
}

/** Each unit's outcome, and for each unit not merged where its work is and how to finish it. */
export function describeUnitOutcomes(run: ParallelRunState, context: OutcomeContext): string {
  const lines = [`Parallel run ${run.run_id} into ${run.run_branch}:`];
  let unfinished = false;
  for (const unit of run.units) {
    const shown = unit.state === 'running' && context.interrupted ? 'interrupted' : unit.state.replace('-', ' ');
    const reason = unit.exit_reason ? ` (${unit.exit_reason})` : '';
    lines.push(`  ${unit.slug}: ${shown}${reason}`);
    if (unit.state === 'in-review') lines.push(`    its work: branch ${unit.branch}, pushed to origin; its item is ticked "in review" in the plan`);
    if (hasLanded(unit) || unit.state === 'pending') continue;
    unfinished = true;
    lines.push(`    its work: branch ${unit.branch}, worktree ${unit.worktree}`);
    lines.push(`    look: git log --oneline ${run.run_branch}..${unit.branch}   cd ${unit.worktree}`);
    if (unit.state === 'needs-review') {
      const byHand = finishPullRequestByHand(unit, pullRequestBase(run, unit), context.rerun) ?? finishByHand(unit, context.rerun, run.run_branch);
      lines.push(`    finish it: ${byHand}`);
    } else if (unit.state === 'failed') lines.push(`    ${context.rerun} runs its loop again from its branch`);
  }
  if (unfinished && context.abandon) lines.push(`  To drop this run instead (its branches, worktrees and backup refs are kept): ${context.abandon}`);
  return `${lines.join('\n')}\n`;
}

/** The steps that finish a unit that needs review by hand, then let ralph merge it. */
function finishByHand(unit: UnitRecord, rerun: string, runBranch: string): string {
  const moved = / moved from (\S+) to (\S+) while its agent resolved the earlier conflict$/.exec(unit.exit_reason);
  if (moved) {
    return `${rerun} gives its agent a pass at the new conflict (git log ${moved[1]}..${moved[2]} shows what came in); or by hand: cd ${unit.worktree}, git merge ${runBranch}, resolve, git commit; then ${rerun} merges it`;
  }
  const conflict = /^merge conflict in (.*?)(?::|$)/.exec(unit.exit_reason);
  if (conflict) {
    return `cd ${unit.worktree}, resolve the conflicts in ${conflict[1]} (no conflict marker left), git add -A && git commit; then ${rerun} merges it`;
  }
  return `fix it on ${unit.branch} (cd ${unit.worktree}, commit your fix); then ${rerun} merges it`;
}

/** What `ralph --parallel-abandon` kept: each unit not merged, with its branch and worktree, and the run's backup refs. */
export function describeAbandonedRun(run: ParallelRunState, backupRefs: string[]): string {
  const kept = run.units.filter((u) => u.state !== 'merged');
  const lines = [`Abandoned parallel run ${run.run_id} (into ${run.run_branch}); the next ralph --parallel starts a new run from fix_plan.md.`];
  if (kept.length === 0) lines.push('Every unit of it was merged: nothing is left behind.');
  else lines.push(`Kept, ${kept.length} unit(s) not merged:`);
  for (const unit of kept) lines.push(`  ${unit.slug} (${unit.state}): branch ${unit.branch}, worktree ${unit.worktree}`);
  if (backupRefs.length > 0) {
    lines.push('Backup refs of its merges:');
    for (const ref of backupRefs) lines.push(`  ${ref}`);
  }
  if (kept.length > 0 || backupRefs.length > 0) {
    lines.push('Remove them once you no longer need them: git worktree remove <worktree>, git branch -D <branch>, git update-ref -d <ref>');
  }
  return `${lines.join('\n')}\n`;
}
