// The invocations people and scripts run most — `ralph --help`, `--version`, `--status`
// (`--json`), `--config` (`--json`), `--circuit-status` — answered without loading the flag
// table and its parser (and the first three without zod), to keep start-up within budget. This
// is no second parser: the build runs the table's parser over every such command line
// (ralph-options.ts, fastCommandLines) and writes what it gives into dist/cli/ralph-fast-path.json;
// a command line found there goes to ralph's one dispatcher (ralph.ts) with those options, any
// other through the full parser.

import { readFileSync } from 'node:fs';
import type { RalphCliOptions } from './ralph/ralph-options.js';

/** The options the parser gives argv, when the build found it to be a fast command line; else undefined. */
export function readFastOptions(argv: readonly string[]): RalphCliOptions | undefined {
  const index = readBuilt('ralph-fast-path.json');
  if (index === undefined) return undefined;
  const options = (JSON.parse(index) as Record<string, Omit<RalphCliOptions, 'argv'> | undefined>)[fastPathKey(argv)];
  return options && { ...options, argv: [...argv] };
}

/** The key of a command line in the fast-path index: its words sorted, so `--json --status` is `--status --json`. */
export function fastPathKey(argv: readonly string[]): string {
  return JSON.stringify([...argv].sort());
}

/** dist/cli/ralph-help.txt, written by scripts/render-help.mjs at build time. */
export function readPrerenderedHelp(): string | undefined {
  return readBuilt('ralph-help.txt');
}

function readBuilt(name: string): string | undefined {
  try {
    // `../cli/`: this module runs from dist/cli/ and, bundled, from dist/bundle-ralph/ (scripts/bundle.mjs).
    return readFileSync(new URL(`../cli/${name}`, import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}
