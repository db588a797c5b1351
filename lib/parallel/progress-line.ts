// One combined progress line for the units of a parallel run, on a terminal only: redrawn in
// place as units change state, cleared before any other line is written (through `around`)
// and drawn again after it, so log lines and the summary never share a line with it.

import type { Deps, Logger, Output } from '../platform/deps.js';
import { createLogger } from '../platform/logger.js';
import { stripTerminalControls } from '../text/terminal-text.js';
import type { ParallelRunState } from './run-state.js';

const CLEAR_LINE = '\r\x1b[2K';

export class ProgressLine {
  private text = '';
  private shown = false;

  constructor(private readonly terminal: Output) {}

  /** The output, whose writes first clear the progress line and draw it again after. */
  around(output: Output): Output {
    return {
      isTTY: output.isTTY,
      columns: output.columns,
      write: (text) => {
        this.hide();
        output.write(text);
        this.draw();
      },
    };
  }

  set(text: string): void {
    const width = Math.max(20, (this.terminal.columns ?? 80) - 1);
    const line = stripTerminalControls(text).replace(/\s+/g, ' ');
    const fitted = line.length > width ? `${line.slice(0, width - 1)}…` : line;
    if (fitted === this.text && this.shown) return;
    this.hide();
    this.text = fitted;
    this.draw();
  }

  /** Clears the line for good (the run's summary follows). */
  close(): void {
    this.hide();
    this.text = '';
  }

  private hide(): void {
    if (!this.shown) return;
    this.terminal.write(CLEAR_LINE);
    this.shown = false;
  }

  private draw(): void {
    if (this.text === '' || this.shown) return;
    this.terminal.write(this.text);
    this.shown = true;
  }
}

/** The progress line's text: units merged, each unit at work and its loop, the run's cost. */
export function describeProgress(run: ParallelRunState): string {
  const merged = run.units.filter((u) => u.state === 'merged').length;
  const inReview = run.units.filter((u) => u.state === 'in-review').length;
  const cost = run.units.reduce((sum, u) => sum + u.cost_usd, 0);
  const working = run.units.filter((u) => u.state === 'running' || u.state === 'merging' || u.state === 'conflict');
  const parts = working.map((u) =>
    u.state === 'running' ? `${u.slug} loop ${u.loops + 1}` : `${u.slug} ${u.state === 'conflict' ? 'resolving a conflict' : 'merging'}`,
  );
  const landed = inReview > 0 ? [`${merged + inReview}/${run.units.length} landed (${inReview} in review)`] : [`${merged}/${run.units.length} merged`];
  return [...landed, ...parts, `$${cost.toFixed(2)}`].join(' · ');
}

/** The console of a parallel run: on a terminal, its outputs and logger around one progress line; else the process's own. */
export function openRunConsole(
  deps: Deps,
  logFile: string,
  verbose: boolean,
): { progress: ProgressLine | undefined; console: { stdout: Output; stderr: Output; logger: Logger } } {
  if (!deps.stderr.isTTY) return { progress: undefined, console: { stdout: deps.stdout, stderr: deps.stderr, logger: deps.logger } };
  const progress = new ProgressLine(deps.stderr);
  const stderr = progress.around(deps.stderr);
  const logger = createLogger({ logFile, stderr, env: deps.env, redact: deps.redact, clock: deps.clock, verbose });
  return { progress, console: { stdout: progress.around(deps.stdout), stderr, logger } };
}
