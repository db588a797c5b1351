// The Deps one unit's loop runs with: the process's clock, runner and env, but its own logger
// (its worktree's ralph.log, and the console with every line tagged `[unit]`) and no stdin
// (nobody is asked at a usage limit: the unit waits, as an unattended loop does).

import { join } from 'node:path';
import type { Deps, Output } from '../platform/deps.js';
import { createLogger } from '../platform/logger.js';

export function buildUnitDeps(deps: Deps, unit: string, worktreeDir: string, verbose: boolean): Deps {
  const stderr = tagLines(deps.stderr, unit);
  return {
    ...deps,
    cwd: worktreeDir,
    logger: createLogger({ logFile: join(worktreeDir, '.ralph', 'logs', 'ralph.log'), stderr, env: deps.env, redact: deps.redact, clock: deps.clock, verbose }),
    stdout: tagLines(deps.stdout, unit),
    stderr,
    stdin: undefined,
  };
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
