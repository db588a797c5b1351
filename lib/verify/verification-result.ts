// What the verification gate found: per command and for the whole gate. Types plus the pure
// helpers that bound them (names and messages truncated, failure lists capped), so a result is
// always small enough to keep in the session record and the loop context.

export type ReportFormat = 'vitest-json' | 'jest-json' | 'junit-xml' | 'tap' | 'go-json' | 'cargo' | 'summary' | 'exit-code';

export interface TestFailure {
  /** A name the agent can find: `file > suite > test`, `classname.test`, `pkg TestX`. */
  name: string;
  /** The first meaningful line(s) of the failure, truncated. */
  message: string;
}

/** What a parser read from a test tool's output. */
export interface TestReport {
  format: ReportFormat;
  passed: number;
  failed: number;
  skipped: number;
  failures: TestFailure[];
}

/**
 * passed · failed · error (could not run or finish) · not-verified: the test command ran and
 * reported that it executed no test (0 collected, `1..0`, `numTotalTests: 0`, "no tests found"),
 * so it proves nothing and never counts as a pass.
 */
export type VerificationStatus = 'passed' | 'failed' | 'error' | 'not-verified';
export type CommandRole = 'test' | 'quality-gate';

export interface CommandVerification {
  command: string;
  role: CommandRole;
  /**
   * passed: exit 0 · failed: non-zero exit · error: could not start, timed out or interrupted ·
   * not-verified: a test command whose output says it ran no test. A pass with format
   * `exit-code` is a pass on the exit code only (nothing could be counted).
   */
  status: VerificationStatus;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** Where the counts and names came from; exit-code when nothing could be read. */
  format: ReportFormat;
  passed: number;
  failed: number;
  skipped: number;
  failures: TestFailure[];
  /** More failures than were kept. */
  failuresOmitted: number;
  /** The end of stdout and stderr together, ANSI codes removed (bounded). */
  output: string;
  /** Not verified for a sharp drop in the tests it ran against the last passing run (test-count.ts). */
  lostTests?: { ran: number; before: number };
}

export interface VerificationResult {
  /** error when any command errored, else failed when any failed, else not-verified when a test command ran no test, else passed. */
  status: VerificationStatus;
  passed: number;
  failed: number;
  skipped: number;
  durationMs: number;
  /** Failures of every command, in command order (capped). */
  failures: TestFailure[];
  failuresOmitted: number;
  commands: CommandVerification[];
}

export const MAX_FAILURE_NAME_CHARS = 300;
export const MAX_FAILURE_MESSAGE_CHARS = 500;
export const MAX_FAILURES_KEPT = 100;

export function boundFailure(failure: TestFailure): TestFailure {
  return {
    name: truncateText(failure.name.replace(/\s+/g, ' ').trim(), MAX_FAILURE_NAME_CHARS),
    message: truncateText(failure.message.trim(), MAX_FAILURE_MESSAGE_CHARS),
  };
}

/** Bounded failures and how many were left out. */
export function boundFailures(failures: readonly TestFailure[], max = MAX_FAILURES_KEPT): { failures: TestFailure[]; omitted: number } {
  return { failures: failures.slice(0, max).map(boundFailure), omitted: Math.max(0, failures.length - max) };
}

export function combineVerification(commands: CommandVerification[], durationMs: number): VerificationResult {
  const status: VerificationStatus = commands.some((c) => c.status === 'error')
    ? 'error'
    : commands.some((c) => c.status === 'failed')
      ? 'failed'
      : commands.some((c) => c.status === 'not-verified')
        ? 'not-verified'
        : 'passed';
  const all = commands.flatMap((c) => c.failures);
  const kept = all.slice(0, MAX_FAILURES_KEPT);
  const omitted = all.length - kept.length + commands.reduce((sum, c) => sum + c.failuresOmitted, 0);
  return {
    status,
    passed: sum(commands, 'passed'),
    failed: sum(commands, 'failed'),
    skipped: sum(commands, 'skipped'),
    durationMs,
    failures: kept,
    failuresOmitted: omitted,
    commands,
  };
}

/** One log line: `Verification gate FAILED in 2.3s: 1 failing, 4 passing, 0 skipped (npm test: failed; npm run lint: passed)`. */
export function describeVerification(result: VerificationResult): string {
  const commands = result.commands.map((c) => `${c.command}: ${describeCommandStatus(c)}`).join('; ');
  return `${describeVerificationTally(result)} (${commands})`;
}

/** The verdict and the counts, without the commands: `Verification gate FAILED in 2.3s: 1 failing, 4 passing, 0 skipped`. */
export function describeVerificationTally(
  result: Pick<VerificationResult, 'passed' | 'failed' | 'skipped' | 'durationMs'> & {
    status: string;
    commands?: readonly Pick<CommandVerification, 'lostTests'>[];
  },
): string {
  const verdict =
    result.status === 'passed'
      ? 'passed'
      : result.status === 'failed'
        ? 'FAILED'
        : result.status === 'not-verified'
          ? result.commands?.some((c) => c.lostTests)
            ? 'NOT VERIFIED (far fewer tests than the last passing run)'
            : 'NOT VERIFIED (a test command ran no test)'
          : 'could not complete';
  const seconds = (result.durationMs / 1000).toFixed(1);
  return `Verification gate ${verdict} in ${seconds}s: ${result.failed} failing, ${result.passed} passing, ${result.skipped} skipped`;
}

function describeCommandStatus(c: CommandVerification): string {
  if (c.timedOut) return 'timed out';
  if (c.status === 'not-verified') return c.lostTests ? `ran ${c.lostTests.ran} of the ${c.lostTests.before} tests of the last passing run` : 'ran no test';
  if (c.status === 'passed' && c.role === 'test' && c.format === 'exit-code') return 'passed (exit code only)';
  return c.status;
}

function sum(commands: CommandVerification[], key: 'passed' | 'failed' | 'skipped'): number {
  return commands.reduce((total, c) => total + c[key], 0);
}

/** Cut to max characters with an ellipsis, never leaving half a surrogate pair. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  if (end > 0 && /[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end--;
  return `${text.slice(0, end)}…`;
}
