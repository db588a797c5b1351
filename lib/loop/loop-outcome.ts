// A loop's outcome as ralph measured it, for metrics.jsonl (and so ralph-stats): the agent call's
// result, then the verification gate's verdict and whether the loop halted the run. The agent's
// own claims (its TESTS_STATUS) count only when there is no gate to ask. Pure.

export type GateVerdict = 'passed' | 'failed' | 'error' | 'not-verified';

export interface LoopOutcomeInput {
  /** How the agent call ended: ok, failed, timeout, timed_out_productive, … */
  agentOutcome: string;
  /** TESTS_STATUS from the agent's status block, when it gave one. */
  agentTestsStatus: string | null;
  /** The gate's latest verdict on this loop's code; null when there is no gate or it has not run. */
  gate: GateVerdict | null;
  /** The loop ended the run on a guard (circuit breaker). */
  halted: boolean;
}

export interface LoopOutcome {
  /** The Bash field: true only for a loop whose agent call succeeded and whose code passed the gate. */
  success: boolean;
  /** halted · verification_failed · verification_error · not_verified (after work done) · else the agent's outcome. */
  outcome: string;
  tests_status: string | null;
  /** Where tests_status came from. */
  tests_source: 'gate' | 'agent' | null;
}

const GATE_TESTS_STATUS: Record<GateVerdict, string> = { passed: 'PASSING', failed: 'FAILING', error: 'ERROR', 'not-verified': 'NOT_VERIFIED' };

export function measureLoopOutcome(input: LoopOutcomeInput): LoopOutcome {
  const { gate } = input;
  // A failed agent call stays the loop's outcome; the gate judges only work that was done.
  const worked = input.agentOutcome === 'ok' || input.agentOutcome === 'timed_out_productive';
  const outcome = input.halted
    ? 'halted'
    : worked && gate === 'failed'
      ? 'verification_failed'
      : worked && gate === 'error'
        ? 'verification_error'
        : worked && gate === 'not-verified'
          ? 'not_verified'
          : input.agentOutcome;
  return {
    success: input.agentOutcome === 'ok' && !input.halted && (gate === null || gate === 'passed'),
    outcome,
    tests_status: gate ? GATE_TESTS_STATUS[gate] : input.agentTestsStatus,
    tests_source: gate ? 'gate' : input.agentTestsStatus === null ? null : 'agent',
  };
}
