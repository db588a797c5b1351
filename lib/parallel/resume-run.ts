// Taking an unfinished `ralph --parallel` run up again so that running again always makes
// progress: plan items added since the run started join it as new units, and a unit that
// needs review is tried again from its branch as it is now (with whatever fix the user made
// there): merged when its worktree holds no conflict, its agent's conflict pass again when
// git's markers are still in it. Failed units run their loop again (unit-runner.ts).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { GitContext } from './git.js';
import { runGit } from './git.js';
import { hasConflictMarkers, listConflictedFiles } from './merge.js';
import type { PlanUnit } from './plan-units.js';
import { unitPlace, type ParallelRunState, type UnitRecord } from './run-state.js';

/** The plan's open units the run does not have yet, as new pending units of the run. */
export function joinNewPlanUnits(run: ParallelRunState, planUnits: PlanUnit[]): UnitRecord[] {
  const known = new Set(run.units.map((u) => u.item));
  const taken = new Set(run.units.map((u) => u.slug));
  const slugOf = new Map(run.units.map((u) => [u.item, u.slug]));
  const added: UnitRecord[] = [];
  const fresh = planUnits.filter((u) => !known.has(u.item));
  for (const unit of fresh) {
    let slug = unit.slug;
    for (let n = 2; taken.has(slug); n++) slug = `${unit.slug}-${n}`;
    taken.add(slug);
    slugOf.set(unit.item, slug);
  }
  const planSlugToItem = new Map(planUnits.map((u) => [u.slug, u.item]));
  for (const unit of fresh) {
    const slug = slugOf.get(unit.item)!;
    const after = unit.after.map((s) => slugOf.get(planSlugToItem.get(s) ?? '')).filter((s): s is string => s !== undefined);
    added.push(newUnitRecord(run.run_id, slug, unit, after));
  }
  return added;
}

export function newUnitRecord(runId: string, slug: string, unit: Pick<PlanUnit, 'item' | 'lines'>, after: string[]): UnitRecord {
  return {
    slug,
    item: unit.item,
    lines: unit.lines,
    after,
    ...unitPlace(runId, slug),
    state: 'pending',
    loops: 0,
    cost_usd: 0,
    exit_code: null,
    exit_reason: '',
    conflict_passes: 0,
    merge_attempts: 0,
  };
}

/**
 * A unit that needs review, made ready to try again: 'conflict' (its agent's pass) when its
 * worktree is in a merge that still has conflicts or markers, 'merging' otherwise (what the
 * user left in the worktree is committed on the unit's branch first, then merged).
 */
export async function retryUnit(
  git: GitContext,
  projectDir: string,
  unit: UnitRecord,
): Promise<Pick<UnitRecord, 'state' | 'conflict_passes' | 'exit_reason' | 'exit_code'>> {
  const dir = join(projectDir, unit.worktree);
  let conflicted = false;
  if (existsSync(join(dir, '.git'))) {
    const merging = (await runGit(git, dir, ['rev-parse', '-q', '--verify', 'MERGE_HEAD'])).ok;
    if (merging) {
      const files = await listConflictedFiles(git, dir);
      conflicted = files.length > 0 || hasConflictMarkers(dir, await mergeFiles(git, dir));
    }
  }
  return { state: conflicted ? 'conflict' : 'merging', conflict_passes: 0, exit_reason: '', exit_code: null };
}

/** The files a merge in progress changed (where markers could be). */
async function mergeFiles(git: GitContext, dir: string): Promise<string[]> {
  const diff = await runGit(git, dir, ['diff', '--name-only', '-z', 'HEAD']);
  return diff.stdout.split('\0').filter(Boolean);
}
