// `ralph-monitor --unit N`: the live output of the N-th unit of a `ralph --parallel` run, shown
// in the `unit-<N>` window of `ralph --monitor --parallel`. The unit is looked up by position in
// `.ralph/parallel.json` on every poll (its slug comes from plan text, so it is never in an argv),
// and its worktree's `.ralph/live.log` is followed as `tail -F` would: from the start, again
// from the start when the file is truncated or replaced (each loop starts a fresh one), and a
// placeholder until the unit's worktree exists or after it was merged and removed. The file is
// followed by log-follow.ts, through the terminal sanitizer: the agent wrote that text.

import { join } from 'node:path';
import { sanitizeLine } from '../text/terminal-text.js';
import type { Clock } from '../platform/clock.js';
import { silentLogger } from '../platform/logger.js';
import type { UnitRecord } from '../parallel/run-state.js';
import { resumableRun } from '../parallel/upcoming-units.js';
import { ralphPaths } from '../state/paths.js';
import { LogFollower, pollUntilAborted } from './log-follow.js';

export interface UnitFollowOptions {
  projectDir: string;
  /** The unit's place in parallel.json, from 1. */
  position: number;
  clock: Clock;
  intervalMs: number;
  signal: AbortSignal;
  write(text: string): void;
  /** The window's width now, to wrap long lines with their gutter (undefined: not a terminal). */
  columns?: () => number | undefined;
  /** Called after each poll (tests wait on it instead of sleeping). */
  onPoll?: () => void;
}

export async function followUnit(options: UnitFollowOptions): Promise<void> {
  const follower = new UnitFollower(options);
  await pollUntilAborted(() => follower.poll(), options);
}

export class UnitFollower {
  private readonly paths;
  private readonly log: LogFollower;
  private lastState = '';

  constructor(private readonly options: Pick<UnitFollowOptions, 'projectDir' | 'position' | 'clock' | 'write' | 'columns'>) {
    this.paths = ralphPaths(options.projectDir);
    this.log = new LogFollower(options.write, options.columns);
  }

  poll(): void {
    const { position } = this.options;
    let unit: UnitRecord | undefined;
    try {
      unit = resumableRun(this.paths, { logger: silentLogger, clock: this.options.clock })?.units[position - 1];
    } catch {
      unit = undefined;
    }
    if (!unit) {
      this.log.forget();
      this.log.note(`=== unit-${position}: waiting for unit ${position} of a parallel run (.ralph/parallel.json) ===`);
      return;
    }
    const name = `unit-${position} ${sanitizeLine(unit.slug)}`;
    // The worktree's path is derived from the run id and the slug (both checked by parallel.json's schema), never read from the file.
    const liveLog = ralphPaths(join(this.options.projectDir, unit.worktree)).liveLog;
    if (unit.state !== this.lastState) {
      this.lastState = unit.state;
      this.log.line(`--- ${name}: ${unit.state} ---`);
    }
    const shown = this.log.read(liveLog);
    if (shown === 'missing') {
      this.log.note(
        unit.state === 'merged'
          ? `=== ${name}: merged; its worktree was removed ===`
          : unit.state === 'pending'
            ? `=== ${name}: waiting for its worktree (${sanitizeLine(unit.worktree)}) ===`
            : `=== ${name}: waiting for its live output ===`,
      );
    } else if (typeof shown === 'object') {
      this.log.note(`=== ${name}: cannot show its live.log: ${sanitizeLine(shown.message)} ===`);
    }
  }
}
