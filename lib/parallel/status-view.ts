// The parallel run as `ralph --status` (plain and --json) shows it: one entry per unit (item,
// branch, worktree, state, loops, cost, exit reason), read-only from .ralph/parallel.json.

import type { RalphPaths } from '../state/paths.js';
import type { StateReadOptions } from '../state/state-file.js';
import { loadParallelRun } from './run-state.js';

export interface ParallelStatusView {
  run_id: string;
  run_branch: string;
  base_commit: string;
  finished: boolean;
  abandoned: boolean;
  units: Array<{
    item: string;
    slug: string;
    branch: string;
    worktree: string;
    state: string;
    after: string[];
    loops: number;
    cost_usd: number;
    exit_reason: string;
    /** `--parallel-land pr`: the unit's pull request. */
    pr_url?: string;
  }>;
}

export function readParallelStatus(paths: Pick<RalphPaths, 'ralphDir'>, options: StateReadOptions): ParallelStatusView | null {
  const run = loadParallelRun(paths, { ...options, quarantine: false });
  if (!run) return null;
  return {
    run_id: run.run_id,
    run_branch: run.run_branch,
    base_commit: run.base_commit,
    finished: run.finished,
    abandoned: run.abandoned_at !== undefined,
    units: run.units.map((u) => ({
      item: u.item,
      slug: u.slug,
      branch: u.branch,
      worktree: u.worktree,
      state: u.state,
      after: u.after,
      loops: u.loops,
      cost_usd: u.cost_usd,
      exit_reason: u.exit_reason,
      ...(u.pr_url !== undefined ? { pr_url: u.pr_url } : {}),
    })),
  };
}

/** The parallel run as plain `ralph --status` prints it: the run, then one line per unit. */
export function formatParallelStatus(view: ParallelStatusView): string {
  const merged = view.units.filter((u) => u.state === 'merged').length;
  const inReview = view.units.filter((u) => u.state === 'in-review').length;
  const total = view.units.reduce((sum, u) => sum + u.cost_usd, 0);
  const how = view.abandoned ? 'abandoned' : view.finished ? 'finished' : 'not finished';
  const review = inReview > 0 ? `, ${inReview} in review` : '';
  const lines = [
    `Parallel run ${view.run_id} into ${view.run_branch}: ${how}, ${merged} of ${view.units.length} unit(s) merged${review}, $${total.toFixed(2)}`,
  ];
  const width = Math.max(...view.units.map((u) => u.slug.length), 0);
  for (const unit of view.units) {
    const state = unit.state.replace('-', ' ');
    const reason = unit.exit_reason ? ` · ${unit.exit_reason}` : '';
    lines.push(`  ${unit.slug.padEnd(width)}  ${state.padEnd(12)}  loops ${unit.loops} · $${unit.cost_usd.toFixed(2)}${reason}`);
  }
  return `${lines.join('\n')}\n`;
}
