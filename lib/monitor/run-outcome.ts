// How a run under `ralph --monitor` ended, handed back from the loop pane to the `ralph
// --monitor` that started it: the pane writes its exit code and its last screen lines to a
// private file before the session closes, and the caller prints them and exits with that code
// (a closed tmux session otherwise leaves only `[exited]` and exit 0 on the user's terminal).

import { existsSync, readFileSync } from 'node:fs';
import { describeExitCode } from '../errors.js';
import { sanitizeText } from './ansi.js';

export interface RunOutcome {
  exitCode: number;
  /** The loop pane's last non-blank screen lines, oldest first. */
  lastLines: string[];
}

/** How many of the loop pane's last lines reach the user's terminal: the halt box's advice fits. */
export const OUTCOME_LINES = 24;

/** The result file's text: the exit code on the first line, then the pane as captured. */
export function parseRunOutcome(text: string): RunOutcome | undefined {
  const [first = '', ...rest] = text.split('\n');
  if (!/^\d{1,3}$/.test(first.trim())) return undefined;
  const lines = rest.map((line) => sanitizeText(line).trimEnd());
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  while (lines.length > 0 && lines[0] === '') lines.shift();
  return { exitCode: Number(first.trim()), lastLines: lines.slice(-OUTCOME_LINES) };
}

export function readRunOutcome(file: string): RunOutcome | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return parseRunOutcome(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** What the user's terminal shows once the monitor is gone. */
export function formatRunOutcome(outcome: RunOutcome, where: string): string {
  const body = outcome.lastLines.length > 0 ? ['Last lines of the loop pane:', ...outcome.lastLines.map((l) => `  ${l}`), ''] : [];
  return [...body, `ralph --monitor: the run ended with exit code ${outcome.exitCode} (${describeExitCode(outcome.exitCode)}); ${where}`, ''].join('\n');
}
