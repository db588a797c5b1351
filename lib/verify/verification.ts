// Decisions about verification results, all pure: how a loop's result compares with the one
// before (tests-passing / improving / regressing / stuck / error), when the same failures have
// lasted long enough to open the circuit breaker (CB_SAME_FAILURES_THRESHOLD) and with what
// reason, whether a completion claim may stand, and what the next loop is told.

import type { ExitGateResult } from '../exit-gate/exit-gate.js';

export type VerificationOutcome = 'tests-passing' | 'improving' | 'regressing' | 'stuck' | 'error';

/** The part of a verification result these decisions read (VerificationResult has it). */
export interface VerificationSnapshot {
  status: 'passed' | 'failed' | 'error' | 'not-verified';
  passed: number;
  failed: number;
  skipped?: number;
  failures: ReadonlyArray<{ name: string; message?: string }>;
  failuresOmitted?: number;
  commands?: ReadonlyArray<{ command: string; role?: string; status: string }>;
}

/**
 * error: the gate could not give an answer (it could not complete, or a test command ran no
 * test: not verified) · tests-passing: it passed · otherwise the number
 * of failures against the previous result: fewer is improving, more (or failing after
 * passing) is regressing, the same is stuck — unless more tests pass than before (the agent
 * added passing tests), which is improving. With no earlier result to compare, a failing
 * result shows no movement: stuck.
 */
export function classifyVerification(previous: VerificationSnapshot | null | undefined, current: VerificationSnapshot): VerificationOutcome {
  if (current.status === 'error' || current.status === 'not-verified') return 'error';
  if (current.status === 'passed') return 'tests-passing';
  if (!previous || previous.status === 'error' || previous.status === 'not-verified') return 'stuck';
  if (previous.status === 'passed') return 'regressing';
  const before = failingCount(previous);
  const now = failingCount(current);
  if (now < before) return 'improving';
  if (now > before) return 'regressing';
  return current.passed > previous.passed ? 'improving' : 'stuck';
}

export function failingCount(result: VerificationSnapshot): number {
  return Math.max(result.failed, result.failures.length + (result.failuresOmitted ?? 0));
}

/**
 * The set of failures as one text (order-insensitive); null when the result passed.
 * verify/same-failures.ts hashes it into the signature the same-failures count compares. The
 * failures the runner counted but did not name (a summary line's count; the gate then names
 * only the command) are part of it: a count that changed is not the same failures (fixing them
 * one per loop is progress).
 */
export function failingSetText(result: VerificationSnapshot): string | null {
  if (result.status === 'passed') return null;
  const names = [...new Set(result.failures.map((f) => f.name))].sort();
  const unnamed = Math.max(0, result.failed - result.failures.length);
  return `${result.status}\n${result.failuresOmitted ?? 0}\n${names.join('\n')}${unnamed > 0 ? `\n${unnamed} unnamed` : ''}`;
}

export interface SameFailuresState {
  signature: string | null;
  /** Consecutive loops with this signature. */
  count: number;
  /** The failing names (first few), for the breaker's reason. */
  names: string[];
  /** failed: tests failed · error: the gate could not complete. */
  kind: 'failed' | 'error' | null;
  /** Failures beyond `names`. */
  more: number;
}

/** How many failing names the same-failures state keeps for the breaker's reason. */
export const NAMES_KEPT = 10;

export function initialSameFailures(): SameFailuresState {
  return { signature: null, count: 0, names: [], kind: null, more: 0 };
}

export function sameFailuresTripped(state: SameFailuresState, threshold: number): boolean {
  return threshold > 0 && state.signature !== null && state.count >= threshold;
}

const SAME_FAILURES_PREFIX = 'Same failing tests in ';
const GATE_ERROR_PREFIX = 'Verification could not complete in ';

/** `Same failing tests in 3 consecutive loops: a > b, c (and 2 more)` */
export function formatSameFailuresReason(state: SameFailuresState, maxNames = 3): string {
  const shown = state.names.slice(0, maxNames);
  const more = state.more + state.names.length - shown.length;
  const list = `${shown.join(', ')}${more > 0 ? ` (and ${more} more)` : ''}`;
  return state.kind === 'error'
    ? `${GATE_ERROR_PREFIX}${state.count} consecutive loops: ${list}`
    : `${SAME_FAILURES_PREFIX}${state.count} consecutive loops: ${list}`;
}

/** The breaker's reason is one formatSameFailuresReason() wrote: the gate, not a lack of progress, opened it. */
export function isSameFailuresReason(reason: string): boolean {
  return reason.startsWith(SAME_FAILURES_PREFIX) || reason.startsWith(GATE_ERROR_PREFIX);
}

export interface CompletionCheckInput {
  exitGate: ExitGateResult;
  /** VERIFY_BEFORE_EXIT and there is a command to run. */
  requiredForExit: boolean;
  latest: VerificationSnapshot | null;
  /** The latest result was taken after the last loop that changed files. */
  fresh: boolean;
}

/**
 * proceed: do what the exit gate said · verify: run the gate now and ask again · blocked:
 * completion was claimed but the gate does not pass; the loop goes on. Only completions are
 * checked; halts (permission denied, completion conflict) stand as they are.
 */
export type CompletionCheck = { kind: 'proceed' } | { kind: 'verify' } | { kind: 'blocked'; reason: string };

export function checkCompletion(input: CompletionCheckInput): CompletionCheck {
  const gate = input.exitGate;
  if (gate.kind !== 'exit' || gate.outcome !== 'completed' || !input.requiredForExit) return { kind: 'proceed' };
  if (!input.latest || !input.fresh) return { kind: 'verify' };
  if (input.latest.status === 'passed') return { kind: 'proceed' };
  const what =
    input.latest.status === 'error'
      ? 'the verification gate could not complete'
      : input.latest.status === 'not-verified'
        ? 'the test command ran no test (not verified)'
        : `${failingCount(input.latest)} verification failure(s) remain`;
  return { kind: 'blocked', reason: `Completion claimed (${gate.reason}) but ${what}; continuing` };
}

const FAILURE_LINE_CHARS = 240;

/** The section the next loop's context carries when the gate did not pass; '' when it passed. */
export function formatFailuresForContext(result: VerificationSnapshot, maxChars: number): string {
  if (result.status === 'passed' || maxChars <= 0) return '';
  const commands = (result.commands ?? []).filter((c) => c.status !== 'passed').map((c) => `\`${c.command}\``);
  const where = commands.length > 0 ? ` (${commands.join(', ')})` : '';
  const head =
    result.status === 'error'
      ? `Verification gate could not complete${where}:`
      : result.status === 'not-verified'
        ? `Verification gate NOT VERIFIED${where}: the test command ran no test, which proves nothing:`
        : `Verification gate FAILED after your last changes${where}: ${failingCount(result)} failing, ${result.passed} passing, ${result.skipped ?? 0} skipped. Failing:`;
  const tail = 'Fix these before you set EXIT_SIGNAL: true — completion is accepted only when the gate passes.';
  const lines = [head];
  let size = head.length + tail.length + 2;
  let shown = 0;
  const total = failingCount(result);
  for (const failure of result.failures) {
    const message =
      (failure.message ?? '')
        .split('\n')
        .find((l) => l.trim() !== '')
        ?.trim() ?? '';
    const line = cut(`- ${failure.name}${message ? `: ${message}` : ''}`, FAILURE_LINE_CHARS);
    const reserve = shown + 1 < total ? 30 : 0;
    if (size + line.length + 1 + reserve > maxChars) break;
    lines.push(line);
    size += line.length + 1;
    shown++;
  }
  if (shown < Math.max(total, result.failures.length)) lines.push(`- … and ${Math.max(total, result.failures.length) - shown} more`);
  lines.push(tail);
  const text = lines.join('\n');
  return text.length <= maxChars ? text : cut(text, maxChars);
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  if (end > 0 && /[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end--;
  return `${text.slice(0, end)}…`;
}
