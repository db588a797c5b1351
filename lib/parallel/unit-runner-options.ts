// What the callers of the engine of parallel loops (unit-runner.ts) give it: the run's options
// and what differs between `ralph --parallel N` and `ralph-queue process --parallel N`.

import type { StopSignalOptions } from '../loop/stop-signal.js';
import type { Deps } from '../platform/deps.js';
import type { MergeStep } from './merge.js';
import type { UnitRecord } from './run-state.js';

export interface UnitRunnerOptions {
  projectDir: string;
  flags: Record<string, string | number | boolean>;
  deps: Deps;
  /** Units at a time, 2 to 16. */
  parallel: number;
  haltOnFailure: boolean;
  /** For tests: where SIGINT/SIGTERM handlers are installed (default: the real process). */
  signals?: StopSignalOptions['process'];
}

/** What differs between the callers of the engine. */
export interface UnitRunnerHooks {
  /** Where the run's state is written. */
  statePath: string;
  /** The command that takes the run up again, named when a signal stops it. */
  resumeCommand: string;
  /** The command that abandons the run, named in the summary when a unit is left unfinished. */
  abandonCommand?: string;
  /** After a unit's branch merged into the run branch (default: its item ticked in fix_plan.md). */
  afterMerge?: (unit: UnitRecord) => Promise<MergeStep>;
  /** Each change of a unit's state, after it is saved. */
  onStateChange?: (unit: UnitRecord) => void;
  /** Flags a unit's loop runs with on top of the run's (EXIT_CODES is always ralph's). */
  unitFlags?: Record<string, string | number | boolean>;
  /** A new unit branches from the run branch as it is when the unit starts (default: the run's base commit). */
  startFromRunBranch?: boolean;
  /** `--parallel-land pr`: each unit lands as a pull request (pull-request.ts) instead of a local merge. */
  pullRequests?: { draft: boolean };
}
