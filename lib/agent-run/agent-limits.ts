// `.ralph/.agent_limits` (ours): each agent's usage-limit reset while ralph runs on a fallback
// agent, so a restarted run still knows Claude is limited until 15:10 and goes back to it then.
// The agent can write .ralph/, so every entry read back is range-checked like the usage-limit
// wait (an end later than the longest wait ralph chooses is dropped with a warning).

import { basename } from 'node:path';
import * as z from '../state/zod.js';
import { activeLimits, type AgentLimit, type AgentLimits } from './fallback-order.js';
import { usageWaitProblem } from '../breaker/guard-ranges.js';
import { writeJsonAtomic } from '../state/atomic-write.js';
import type { RalphPaths } from '../state/paths.js';
import { readStateFile, type StateReadOptions } from '../state/state-file.js';
import { HeldState } from '../state/held-state.js';

const limitSchema = z.looseObject({
  resume_at_ms: z.number(),
  resume_at: z.string(),
  reason: z.string().default(''),
  detected_at: z.string().default(''),
});
const limitsSchema = z.record(z.string(), limitSchema);

/** The limits still in force; entries ralph could not have written are dropped with a warning. */
export function loadAgentLimits(paths: RalphPaths, options: StateReadOptions, maxWaitMs: number): AgentLimits {
  const stored = readStateFile(paths.agentLimits, limitsSchema.nullable(), null, options).value ?? {};
  const now = options.clock.now();
  const kept: AgentLimits = {};
  for (const [name, limit] of Object.entries(stored)) {
    const problem = usageWaitProblem(limit, now, maxWaitMs);
    if (problem)
      options.logger.warn(
        `State file ${basename(paths.agentLimits)} holds a value ralph could not have written: ${name} resume_at ${problem}; not waiting for it`,
      );
    else kept[name] = limit;
  }
  return activeLimits(kept, now);
}

export function saveAgentLimits(paths: RalphPaths, limits: AgentLimits): void {
  writeJsonAtomic(paths.agentLimits, limits);
}

/** The limits held for the run, written through to .agent_limits. */
export function holdAgentLimits(paths: RalphPaths, loaded: AgentLimits): HeldState<AgentLimits> {
  return new HeldState(loaded, (next) => saveAgentLimits(paths, next));
}

export function withAgentLimit(limits: AgentLimits, agent: string, limit: AgentLimit): AgentLimits {
  return { ...limits, [agent]: limit };
}
