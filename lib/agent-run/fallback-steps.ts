// The fallback between agents, as loop steps: before a loop, run on the first
// agent that is not at its usage limit (switching to a fallback, or back to the primary once
// its limit has reset); at a usage limit, remember the agent's reset time; at a sign-in failure
// of a fallback agent, leave it out for the rest of the run. The limits are held in memory and
// written through to .ralph/.agent_limits (a restarted run reads them back once).

import { activeLimits, pickAgent, type AgentPick } from './fallback-order.js';
import { formatClockTime } from '../limits/rate-window.js';
import { formatIsoTimestamp } from '../state/timestamps.js';
import { sessionLabel } from '../sessions/agent-session.js';
import { withAgentLimit } from '../limits/agent-limits.js';
import type { Run } from '../loop/run.js';

/** The run may call more than one agent. */
export function hasFallbacks(run: Run): boolean {
  return run.agents.length > 1;
}

/** Switches run.state.agent to the agent the next loop runs on; a wait when every agent is limited. */
export function chooseLoopAgent(run: Run): AgentPick {
  const now = run.deps.clock.now();
  const limits = run.state.agentLimits;
  const before = limits.value;
  // Only a limit that has ended changes them: the same limits are not written again.
  const active = activeLimits(before, now);
  if (Object.keys(active).length !== Object.keys(before).length) limits.set(active);
  const pick = pickAgent(agentOrder(run), limits.value, run.state.droppedAgents, now);
  if (pick.kind !== 'agent' || pick.name === run.state.agent.name) return pick;
  const slot = run.agents.find((s) => s.adapter.name === pick.name)!;
  const previous = run.state.agent;
  run.state.agent = slot.adapter;
  run.state.agentCommand = slot.command;
  const { logger } = run.deps;
  if (slot === run.agents[0]) logger.success(`${sessionLabel(slot.adapter)}'s usage limit has reset: back to ${slot.adapter.label}`);
  else {
    const limit = before[previous.name];
    const until = limit ? ` until ${formatClockTime(limit.resume_at_ms)}` : '';
    logger.warn(
      `Falling back to ${slot.adapter.label} (${slot.command}) while ${previous.label} is unavailable${until}; a new ${sessionLabel(slot.adapter)} session, the same prompt and plan`,
    );
  }
  return pick;
}

/** Remembers that the current agent is limited until `resumeAt`; then what the run does next. */
export function limitCurrentAgent(run: Run, resumeAt: number, reason: string): AgentPick {
  const now = run.deps.clock.now();
  const limits = run.state.agentLimits;
  limits.set(
    withAgentLimit(limits.value, run.state.agent.name, {
      resume_at_ms: resumeAt,
      resume_at: formatIsoTimestamp(resumeAt),
      reason,
      detected_at: formatIsoTimestamp(now),
    }),
  );
  return pickAgent(agentOrder(run), limits.value, run.state.droppedAgents, now);
}

/** A limit the user chose to retry now: every agent may be tried again. */
export function forgetAgentLimits(run: Run): void {
  if (Object.keys(run.state.agentLimits.value).length === 0) return;
  run.state.agentLimits.set({});
}

/** A fallback agent (not the primary) whose sign-in failed: left out for the rest of the run. */
export function dropFailedFallback(run: Run): boolean {
  if (run.state.agent === run.agents[0]?.adapter) return false;
  run.state.droppedAgents.add(run.state.agent.name);
  run.deps.logger.warn(`${run.state.agent.label} is left out for the rest of this run (its sign-in failed); the next loop runs on the next available agent`);
  return true;
}

function agentOrder(run: Run): string[] {
  return run.agents.map((s) => s.adapter.name);
}
