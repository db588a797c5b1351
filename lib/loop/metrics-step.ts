// The loop's line in logs/metrics.jsonl, measured once the loop's outcome is known: after the
// verification gate, so `success`, `outcome` and `tests_status` are what ralph measured (see
// loop/loop-outcome.ts). The Bash fields keep their names; the agent's own view is kept beside
// them (agent_outcome, agent_tests_status) with the gate's verdict (verification), and the loop's
// time is the agent call's and the gate's (duration, with agent_duration and gate_duration). The line goes
// out as 'iteration:measured'; metrics-subscriber.ts writes it.

import { measureLoopOutcome, type GateVerdict } from './loop-outcome.js';
import { isFresh } from '../verify/verification-tracker.js';
import type { IterationResult } from './call-outcome.js';
import type { Run } from './run.js';

export function reportLoopMetrics(run: Run, result: IterationResult, halted: boolean, gateMs = 0): void {
  const { metrics } = result;
  const agentTestsStatus = typeof metrics.tests_status === 'string' ? metrics.tests_status : null;
  const gate = currentGateVerdict(run);
  const measured = measureLoopOutcome({ agentOutcome: String(metrics.outcome), agentTestsStatus, gate, halted });
  const line = {
    ...metrics,
    ...measured,
    ...loopDurations(result.run.durationMs, gateMs),
    agent_outcome: metrics.outcome,
    agent_tests_status: agentTestsStatus,
    verification: gate,
  };
  run.events.emit('iteration:measured', { loop: metrics.loop, line });
}

/**
 * `duration` (the Bash field, seconds) is the whole loop's: the agent call and the verification
 * gate after it; `agent_duration` and `gate_duration` are its two parts.
 */
export function loopDurations(agentMs: number, gateMs: number): { duration: number; agent_duration: number; gate_duration: number } {
  const seconds = (ms: number) => Math.round(Math.max(0, ms) / 100) / 10;
  return { duration: Math.round((Math.max(0, agentMs) + Math.max(0, gateMs)) / 1000), agent_duration: seconds(agentMs), gate_duration: seconds(gateMs) };
}

/** The gate's verdict when it is about the current code (see isFresh), else null. */
function currentGateVerdict(run: Run): GateVerdict | null {
  if (run.verification.commands.length === 0 || !isFresh(run.state.verify)) return null;
  return run.state.verify.latest?.status ?? null;
}
