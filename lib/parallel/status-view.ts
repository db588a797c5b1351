// The parallel run as `ralph --status --json` and the monitor show it: one entry per unit
// (item, branch, worktree, state, loops, cost, exit reason), read-only from .ralph/parallel.json.

import type { RalphPaths } from '../state/paths.js';
import type { StateReadOptions } from '../state/state-file.js';
import { loadParallelRun } from './run-state.js';

export interface ParallelStatusView {
  run_id: string;
  run_branch: string;
  base_commit: string;
  finished: boolean;
  units: Array<{ item: string; slug: string; branch: string; worktree: string; state: string; after: string[]; loops: number; cost_usd: number; exit_reason: string }>;
}

export function readParallelStatus(paths: Pick<RalphPaths, 'ralphDir'>, options: StateReadOptions): ParallelStatusView | null {
  const run = loadParallelRun(paths, { ...options, quarantine: false });
  if (!run) return null;
  return {
    run_id: run.run_id,
    run_branch: run.run_branch,
    base_commit: run.base_commit,
    finished: run.finished,
    units: run.units.map((u) => ({ item: u.item, slug: u.slug, branch: u.branch, worktree: u.worktree, state: u.state, after: u.after, loops: u.loops, cost_usd: u.cost_usd, exit_reason: u.exit_reason })),
  };
}
