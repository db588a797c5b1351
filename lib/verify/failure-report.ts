// What a failing verification gate shows the user under its one-line verdict: per command that
// did not pass, the failing tests (name and first message line) or, when nothing could be read
// from its output (a lint gate, a crash), the command's last lines. Bounded in lines and bytes,
// so a huge test run does not flood the console, ralph.log or the dashboard. Pure; the logger
// that prints it masks secrets.

import { lastLines } from './parsers/failure-text.js';
import { truncateText, type CommandVerification, type VerificationResult } from './verification-result.js';
import { firstLine } from '../text/lines.js';

export interface FailureReportLimits {
  maxLines: number;
  maxBytes: number;
}

export const FAILURE_REPORT_LIMITS: FailureReportLimits = { maxLines: 20, maxBytes: 2048 };

const LINE_CHARS = 200;
const TAIL_LINES = 12;
const MORE_LINE_BYTES = 80;

/** The lines to print after a gate that did not pass; [] when it passed. */
export function describeGateFailures(result: VerificationResult, limits: FailureReportLimits = FAILURE_REPORT_LIMITS): string[] {
  if (result.status === 'passed') return [];
  const wanted = result.commands.filter((c) => c.status !== 'passed').flatMap(commandLines);
  const size = (line: string) => Buffer.byteLength(line) + 1;
  if (wanted.length <= limits.maxLines && wanted.reduce((sum, line) => sum + size(line), 0) <= limits.maxBytes) return wanted;
  // Cut: keep room for the line that says where the rest is.
  const shown: string[] = [];
  let bytes = MORE_LINE_BYTES;
  for (const line of wanted) {
    if (shown.length + 1 >= limits.maxLines || bytes + size(line) > limits.maxBytes) break;
    shown.push(line);
    bytes += size(line);
  }
  shown.push(`  … ${wanted.length - shown.length} more line(s) in the session record (.ralph/sessions/)`);
  return shown;
}

function commandLines(command: CommandVerification): string[] {
  const head = `  ${command.command}: ${verdictOf(command)}`;
  if (command.format !== 'exit-code' && command.failures.length > 0) {
    const tests = command.failures.map((f) => cut(`    ✗ ${f.name}${firstLine(f.message) ? ` — ${firstLine(f.message)}` : ''}`));
    if (command.failuresOmitted > 0) tests.push(`    … and ${command.failuresOmitted} more failing`);
    return [head, ...tests];
  }
  // Nothing parseable: the end of what the command printed says why (a lint error, a crash).
  const tail = lastLines(command.output, TAIL_LINES);
  const why = tail === '' ? command.failures.map((f) => firstLine(f.message)).filter((l) => l !== '') : tail.split('\n');
  return [head, ...why.map((line) => cut(`    ${line}`))];
}

function verdictOf(command: CommandVerification): string {
  if (command.timedOut) return 'timed out';
  // Why it could not: could not start, no tests collected, not run.
  if (command.status === 'error') return firstLine(command.failures[0]?.message ?? '') || 'could not complete';
  if (command.status === 'not-verified') return 'ran no test: not verified';
  const count = Math.max(command.failed, command.failures.length + command.failuresOmitted);
  if (command.format !== 'exit-code' && count > 0) return `${count} failing`;
  return command.exitCode === null ? `killed by ${command.signal ?? 'a signal'}` : `exited with code ${command.exitCode}`;
}

function cut(line: string): string {
  return truncateText(line, LINE_CHARS);
}
