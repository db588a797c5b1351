// Which run `ralph` is about to make, read before it starts: PARALLEL (flag, env or .ralphrc) and,
// for a parallel run, how many units it has — an unfinished run's (a resume keeps its units and
// their order), else the plan's open items. `ralph --monitor` opens a window per unit from it.

import { readFileSync } from 'node:fs';
import { loadConfig } from '../config/load-config.js';
import { silentLogger } from '../platform/logger.js';
import { systemClock } from '../platform/clock.js';
import { projectPaths, type RalphPaths } from '../state/paths.js';
import type { StateReadOptions } from '../state/state-file.js';
import { findPlanUnits } from './plan-units.js';
import { loadParallelRun, type ParallelRunState } from './run-state.js';

export interface RunShapeInput {
  projectDir: string;
  homeDir: string;
  env: NodeJS.ProcessEnv;
  flags: Record<string, string | number | boolean>;
}

/** PARALLEL from the flag, env or .ralphrc (1: the single loop). */
export function readParallel(input: RunShapeInput): number {
  if (typeof input.flags.PARALLEL === 'number') return input.flags.PARALLEL;
  return loadConfig({ projectDir: input.projectDir, homeDir: input.homeDir, env: input.env, flags: {} }).config.PARALLEL;
}

/** The unfinished parallel run `ralph --parallel` takes up again, read without moving a corrupt file. */
export function resumableRun(paths: Pick<RalphPaths, 'ralphDir'>, state: StateReadOptions): ParallelRunState | undefined {
  const run = loadParallelRun(paths, { ...state, quarantine: false });
  return run && !run.finished ? run : undefined;
}

/** How many units the parallel run about to start has (0 when it cannot tell: ralph says why itself). */
export function countUpcomingUnits(input: RunShapeInput): number {
  try {
    const { config } = loadConfig(input);
    const paths = projectPaths(input.projectDir, config);
    const resumed = resumableRun(paths, { logger: silentLogger, clock: systemClock });
    if (resumed) return resumed.units.length;
    const found = findPlanUnits(readFileSync(paths.fixPlan, 'utf8'), config.OPTIONAL_SECTIONS);
    return found.ok ? found.units.length : 0;
  } catch {
    return 0;
  }
}
