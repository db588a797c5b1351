// The Deps one unit's loop runs with: the process's clock, runner and env, but its own logger
// and no stdin (nobody is asked at a usage limit: the unit waits, as an unattended loop does).
// Its log holds every line in its worktree's ralph.log; the console gets only its warnings and
// errors (every line with --verbose), tagged `[unit]`, and never a spinner or colour: with N
// units the console reads as the run's own lines (unit-runner.ts) plus what went wrong.

import { join } from 'node:path';
import type { Deps, Logger, Output } from '../platform/deps.js';
import { createLogger } from '../platform/logger.js';

const DISCARD: Output = { write: () => undefined, isTTY: false };

export function buildUnitDeps(deps: Deps, unit: string, worktreeDir: string, verbose: boolean): Deps {
  const stderr = plain(tagLines(deps.stderr, unit));
  const common = { env: deps.env, redact: deps.redact, clock: deps.clock, verbose };
  const file = createLogger({ ...common, logFile: join(worktreeDir, '.ralph', 'logs', 'ralph.log'), stderr: DISCARD });
  const console = createLogger({ ...common, stderr, minLevel: verbose ? 'INFO' : 'WARN' });
  return {
    ...deps,
    cwd: worktreeDir,
    logger: teeLogger(file, console),
    stdout: plain(tagLines(deps.stdout, unit)),
    stderr,
    stdin: undefined,
  };
}

/** A logger that writes each line to both. */
export function teeLogger(a: Logger, b: Logger): Logger {
  return {
    log: (level, message) => {
      a.log(level, message);
      b.log(level, message);
    },
    info: (message) => (a.info(message), b.info(message)),
    warn: (message) => (a.warn(message), b.warn(message)),
    error: (message) => (a.error(message), b.error(message)),
    success: (message) => (a.success(message), b.success(message)),
    debug: (message) => (a.debug(message), b.debug(message)),
  };
}

/** The output as a pipe: no spinner redrawn in place, no colour (several units share the terminal). */
function plain(output: Output): Output {
  return { write: (text) => output.write(text), isTTY: false, columns: output.columns };
}

/** An output that starts each line with `[tag] `, so the units' lines can be told apart. */
export function tagLines(output: Output, tag: string): Output {
  let atLineStart = true;
  return {
    get isTTY() {
      return output.isTTY;
    },
    get columns() {
      return output.columns;
    },
    write(text: string) {
      if (text === '') return;
      let tagged = '';
      for (const piece of text.split(/(?<=\n)/)) {
        // A carriage return redraws a countdown in place: the tag goes after it.
        tagged += atLineStart ? `[${tag}] ${piece}` : piece.replace(/^\r(\x1b\[2K)?/, (cr) => `${cr}[${tag}] `);
        atLineStart = piece.endsWith('\n');
      }
      output.write(tagged);
    },
  };
}
