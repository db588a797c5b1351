// `.ralph/parallel.json`: the parallel run as ralph last wrote it — its id, base commit, run
// branch, and each unit's state — written atomically on every change, so a run stopped by
// Ctrl-C or `kill -9` resumes where it was (`ralph --parallel N` again). The agent can write
// this file: a unit's branch and worktree are derived from the run id and the unit's slug on
// every read (never taken from the file), so they stay under .ralph/worktrees/ and ralph/<run>/;
// the run's spend and clock are kept in the ledger (run-ledger.ts), not here.

import { join } from 'node:path';
import { writeJsonAtomic } from '../state/atomic-write.js';
import type { RalphPaths } from '../state/paths.js';
import { readStateFile, type StateReadOptions } from '../state/state-file.js';
import * as z from '../state/zod.js';

export const UNIT_STATES = ['pending', 'running', 'done', 'merging', 'merged', 'in-review', 'conflict', 'needs-review', 'failed'] as const;
export type UnitState = (typeof UNIT_STATES)[number];

const unitSchema = z.looseObject({
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,48}$/),
  item: z.string(),
  lines: z.array(z.string()),
  after: z.array(z.string()).default([]),
  branch: z.string(),
  worktree: z.string(),
  state: z.enum(UNIT_STATES),
  loops: z.number().int().nonnegative().default(0),
  cost_usd: z.number().nonnegative().default(0),
  exit_code: z.number().int().nullable().default(null),
  exit_reason: z.string().default(''),
  conflict_passes: z.number().int().nonnegative().default(0),
  /** Merges tried so far: numbers the backup refs of each attempt, so none is overwritten. */
  merge_attempts: z.number().int().nonnegative().default(0),
  /** `--parallel-land pr`: the unit's pull request, once opened (or found). */
  pr_url: z.string().optional(),
  /** The queue item the unit works on (`ralph-queue process --parallel`). */
  queue_item: z.string().optional(),
});

const runSchema = z.looseObject({
  run_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/),
  base_commit: z.string().regex(/^[0-9a-f]{40,64}$/),
  run_branch: z.string(),
  started_at: z.string(),
  finished: z.boolean().default(false),
  /** How the units land, as the last `ralph --parallel` said (for the views; the run reads its config). */
  land: z.enum(['merge', 'pr']).optional(),
  /** Set by `ralph --parallel-abandon`: the run was closed with units not merged. */
  abandoned_at: z.string().optional(),
  units: z.array(unitSchema),
});

/** .ralph/parallel.json as the monitor reads it. */
export const parallelFileSchema = runSchema;

export type UnitRecord = z.infer<typeof unitSchema>;
export type ParallelRunState = z.infer<typeof runSchema>;

export function parallelStatePath(paths: Pick<RalphPaths, 'ralphDir'>): string {
  return join(paths.ralphDir, 'parallel.json');
}

export function worktreesDir(paths: Pick<RalphPaths, 'ralphDir'>): string {
  return join(paths.ralphDir, 'worktrees');
}

/** `.ralph/queue-parallel.json`: the same record for `ralph-queue process --parallel N`. */
export function queueParallelStatePath(paths: Pick<RalphPaths, 'ralphDir'>): string {
  return join(paths.ralphDir, 'queue-parallel.json');
}

export function loadParallelRun(paths: Pick<RalphPaths, 'ralphDir'>, options: StateReadOptions): ParallelRunState | undefined {
  return loadParallelRunFile(parallelStatePath(paths), options);
}

export function loadParallelRunFile(file: string, options: StateReadOptions): ParallelRunState | undefined {
  const run = readStateFile(file, runSchema.nullable(), null, options).value ?? undefined;
  if (!run) return undefined;
  for (const unit of run.units) Object.assign(unit, unitPlace(run.run_id, unit.slug));
  return run;
}

/** Where a unit works: its branch and its worktree (relative to the project), from the run id and the unit's slug alone. */
export function unitPlace(runId: string, slug: string): { branch: string; worktree: string } {
  return { branch: `ralph/${runId}/${slug}`, worktree: join('.ralph', 'worktrees', `${runId}-${slug}`) };
}

/** Merged into the run branch, or (`--parallel-land pr`) its pull request opened: the unit's work has landed. */
export function hasLanded(unit: Pick<UnitRecord, 'state'>): boolean {
  return unit.state === 'merged' || unit.state === 'in-review';
}

export function saveParallelRun(file: string, state: ParallelRunState): void {
  writeJsonAtomic(file, state);
}

/** Files and folders a parallel run writes in .ralph/ (a path inside each folder), which git should ignore. */
export function parallelStatePaths(paths: Pick<RalphPaths, 'ralphDir'>): string[] {
  return [parallelStatePath(paths), queueParallelStatePath(paths), join(worktreesDir(paths), 'unit')];
}
