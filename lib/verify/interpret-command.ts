// From a finished command to a verdict: the exit code decides passed or failed; the counts and
// failure names come from the runner's report when there is one, else from its output (TAP,
// cargo, summary lines). A failing command nothing could be read from is one failure named
// after the command, with the end of its output as the message, so a failing lint gate still
// tells the agent what went wrong. pytest's exit 5 (no tests collected) is an error that quotes
// pytest's own line. A test command that otherwise says it ran no test (a report that counts
// none passing or failing, `1..0`, "collected 0 items", "no tests found") is not-verified
// whatever its exit code: it proves nothing; so is one that exits 0 and prints nothing at all
// (a test script replaced by `exit 0`). A test command that exits 0 with output but nothing
// countable stays passed, on its exit code only (format `exit-code`). Pure.

import { formatDuration } from '../limits/countdown.js';
import { parseCargoTest } from './parsers/cargo-test.js';
import { lastLines, stripAnsi } from './parsers/failure-text.js';
import { parseGoTestJson } from './parsers/go-test-json.js';
import { parseJestJson } from './parsers/jest-json.js';
import { parseJunitXml } from './parsers/junit-xml.js';
import { parseSummaryLines } from './parsers/summary-lines.js';
import { parseTap } from './parsers/tap.js';
import type { RunCommandResult } from './run-command.js';
import type { OutputPlan } from './structured-output.js';
import { boundFailures, type CommandRole, type CommandVerification, type TestFailure, type TestReport } from './verification-result.js';

export interface InterpretCommandInput {
  command: string;
  role: CommandRole;
  plan: Pick<OutputPlan, 'report'> & { runner?: OutputPlan['runner'] };
  run: RunCommandResult;
  /** The report file's text, when the plan asked for one and it was written. */
  reportText?: string;
  timeoutMs: number;
  cwd: string;
}

/** Characters of output kept on a command's verdict (the observation caps it again). */
export const MAX_COMMAND_OUTPUT_CHARS = 64 * 1024;
const TAIL_LINES = 15;

export function interpretCommand(input: InterpretCommandInput): CommandVerification {
  const { run, command } = input;
  const output = stripAnsi(run.output).slice(-MAX_COMMAND_OUTPUT_CHARS);
  const base = {
    command,
    role: input.role,
    exitCode: run.exitCode,
    signal: run.signal,
    timedOut: run.timedOut,
    durationMs: run.durationMs,
    output,
  };
  const problem = run.spawnError
    ? `could not start: ${run.spawnError.code ?? run.spawnError.message}`
    : run.timedOut
      ? `timed out after ${formatDuration(input.timeoutMs)}; the process tree was killed`
      : run.interrupted
        ? 'interrupted'
        : noTestsCollected(input.plan.runner, run.exitCode, output);
  if (problem) {
    return {
      ...base,
      status: 'error',
      format: 'exit-code',
      passed: 0,
      failed: 0,
      skipped: 0,
      failures: [{ name: command, message: problem }],
      failuresOmitted: 0,
    };
  }

  const report = readReport(input);
  if (input.role === 'test' && ranNoTest(report, output, run.exitCode)) {
    const silent = output.trim() === '' ? ' and printed nothing' : '';
    const why = `ran no test (exit code ${run.exitCode ?? run.signal}${silent}): not verified\n${lastLines(output, TAIL_LINES)}`.trim();
    return {
      ...base,
      status: 'not-verified',
      format: report?.format ?? 'exit-code',
      passed: 0,
      failed: 0,
      skipped: report?.skipped ?? 0,
      failures: boundFailures([{ name: command, message: why }]).failures,
      failuresOmitted: 0,
    };
  }
  const status = run.exitCode === 0 ? 'passed' : 'failed';
  let failures: TestFailure[] = status === 'passed' ? [] : (report?.failures ?? []);
  if (status === 'failed' && failures.length === 0) {
    const why = run.exitCode === null ? `killed by ${run.signal ?? 'a signal'}` : `exited with code ${run.exitCode}`;
    failures = [{ name: command, message: `${why}\n${lastLines(output, TAIL_LINES)}`.trim() }];
  }
  const bounded = boundFailures(failures);
  return {
    ...base,
    status,
    format: report?.format ?? 'exit-code',
    passed: report?.passed ?? 0,
    failed: status === 'failed' ? Math.max(report?.failed ?? 0, failures.length) : (report?.failed ?? 0),
    skipped: report?.skipped ?? 0,
    failures: bounded.failures,
    failuresOmitted: bounded.omitted,
  };
}

// What runners print when they found nothing to run: pytest, jest, vitest, go, mocha, cargo.
const NO_TESTS_LINE =
  /^\s*(?:=+\s*)?(?:no tests ran\b|collected 0 items\b|no tests? (?:files? )?found\b|no test files? found\b|0 passing\b|running 0 tests\s*$)/im;
// pytest's exit code for "no tests were collected".
const PYTEST_NO_TESTS_EXIT = 5;

/** The command reported that it executed no test: a report counting none, or a runner's own words. */
function ranNoTest(report: TestReport | null, output: string, exitCode: number | null): boolean {
  if (report && report.format !== 'exit-code') {
    if (report.passed + report.failed === 0 && report.failures.length === 0) return true;
    return false;
  }
  if (exitCode !== 0 && exitCode !== PYTEST_NO_TESTS_EXIT) return false;
  // A test command that exits 0 without a word shows no sign of any test.
  return NO_TESTS_LINE.test(output) || (exitCode === 0 && output.trim() === '');
}

/**
 * pytest exits 5 when it collected no tests: nothing was verified, which is not a failing test.
 * The problem quotes pytest's own "collected 0 items" line when there is one.
 */
function noTestsCollected(runner: OutputPlan['runner'] | undefined, exitCode: number | null, output: string): string | null {
  if (runner !== 'pytest' || exitCode !== 5) return null;
  const line = output
    .split('\n')
    .find((l) => /\bcollected 0 items\b/.test(l))
    ?.trim();
  return `no tests collected (pytest exit code 5)${line ? `: ${line}` : ''}`;
}

function readReport(input: InterpretCommandInput): TestReport | null {
  const { plan, run } = input;
  const structured = plan.report;
  if (structured?.kind === 'file' && input.reportText !== undefined) {
    const text = input.reportText;
    const parsed =
      structured.format === 'junit-xml'
        ? parseJunitXml(text)
        : structured.format === 'vitest-json' || structured.format === 'jest-json'
          ? parseJestJson(text, { format: structured.format, cwd: input.cwd })
          : null;
    if (parsed) return parsed;
  }
  if (structured?.kind === 'stdout' && structured.format === 'go-json') {
    const parsed = parseGoTestJson(run.stdout);
    if (parsed) return parsed;
  }
  const output = stripAnsi(run.output);
  return parseCargoTest(output) ?? parseTap(run.stdout) ?? parseSummaryLines(output);
}
