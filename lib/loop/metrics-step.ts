// The loop's line in logs/metrics.jsonl, measured once the loop's outcome is known: after the
// verification gate, so `success`, `outcome` and `tests_status` are what ralph measured (see
// core/loop-outcome.ts). The Bash fields keep their names; the agent's own view is kept beside
// them (agent_outcome, agent_tests_status) with the gate's verdict (verification). The line goes
// out as 'iteration:measured'; metrics-subscriber.ts writes it.

import { measureLoopOutcome, type GateVerdict } from '../core/loop-outcome.js';
import { isFresh } from '../verify/verification-tracker.js';
import type { IterationResult } from './iteration.js';
import type { LoopRuntime } from './runtime.js';

export function reportLoopMetrics(rt: LoopRuntime, result: IterationResult, halted: boolean): void {
  const { metrics } = result;
  const agentTestsStatus = typeof metrics.tests_status === 'string' ? metrics.tests_status : null;
  const gate = currentGateVerdict(rt);
  const measured = measureLoopOutcome({ agentOutcome: String(metrics.outcome), agentTestsStatus, gate, halted });
  const line = { ...metrics, ...measured, agent_outcome: metrics.outcome, agent_tests_status: agentTestsStatus, verification: gate };
  rt.events.emit('iteration:measured', { loop: metrics.loop, line });
}

/** The gate's verdict when it is about the current code (see isFresh), else null. */
function currentGateVerdict(rt: LoopRuntime): GateVerdict | null {
  if (rt.verification.commands.length === 0 || !isFresh(rt.verify)) return null;
  return rt.verify.latest?.status ?? null;
}
