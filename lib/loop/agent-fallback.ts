// The fallback between agents (issue 17 §4), as loop steps: before a loop, run on the first
// agent that is not at its usage limit (switching to a fallback, or back to the primary once
// its limit has reset); at a usage limit, remember the agent's reset time; at a sign-in failure
// of a fallback agent, leave it out for the rest of the run. The limits are held in memory and
// written through to .ralph/.agent_limits (a restarted run reads them back once).

import { activeLimits, pickAgent, type AgentPick } from '../core/agent-fallback.js';
import { formatClockTime } from '../core/rate-window.js';
import { formatIsoTimestamp } from '../state/timestamps.js';
import { sessionLabel } from './agent-session.js';
import { saveAgentLimits, withAgentLimit } from './agent-limits.js';
import type { LoopRuntime } from './runtime.js';

/** The run may call more than one agent. */
export function hasFallbacks(rt: LoopRuntime): boolean {
  return rt.agents.length > 1;
}

/** Switches rt.agent to the agent the next loop runs on; a wait when every agent is limited. */
export function chooseLoopAgent(rt: LoopRuntime): AgentPick {
  const now = rt.deps.clock.now();
  const before = rt.agentLimits;
  rt.agentLimits = activeLimits(rt.agentLimits, now);
  if (Object.keys(rt.agentLimits).length !== Object.keys(before).length) saveAgentLimits(rt.paths, rt.agentLimits);
  const pick = pickAgent(agentOrder(rt), rt.agentLimits, rt.droppedAgents, now);
  if (pick.kind !== 'agent' || pick.name === rt.agent.name) return pick;
  const slot = rt.agents.find((s) => s.adapter.name === pick.name)!;
  const previous = rt.agent;
  rt.agent = slot.adapter;
  rt.agentCommand = slot.command;
  const { logger } = rt.deps;
  if (slot === rt.agents[0]) logger.success(`${sessionLabel(slot.adapter)}'s usage limit has reset: back to ${slot.adapter.label}`);
  else {
    const limit = before[previous.name];
    const until = limit ? ` until ${formatClockTime(limit.resume_at_ms)}` : '';
    logger.warn(`Falling back to ${slot.adapter.label} (${slot.command}) while ${previous.label} is unavailable${until}; a new ${sessionLabel(slot.adapter)} session, the same prompt and plan`);
  }
  return pick;
}

/** Remembers that the current agent is limited until `resumeAt`; then what the run does next. */
export function limitCurrentAgent(rt: LoopRuntime, resumeAt: number, reason: string): AgentPick {
  const now = rt.deps.clock.now();
  rt.agentLimits = withAgentLimit(rt.agentLimits, rt.agent.name, {
    resume_at_ms: resumeAt,
    resume_at: formatIsoTimestamp(resumeAt),
    reason,
    detected_at: formatIsoTimestamp(now),
  });
  saveAgentLimits(rt.paths, rt.agentLimits);
  return pickAgent(agentOrder(rt), rt.agentLimits, rt.droppedAgents, now);
}

/** A limit the user chose to retry now: every agent may be tried again. */
export function forgetAgentLimits(rt: LoopRuntime): void {
  if (Object.keys(rt.agentLimits).length === 0) return;
  rt.agentLimits = {};
  saveAgentLimits(rt.paths, rt.agentLimits);
}

/** A fallback agent (not the primary) whose sign-in failed: left out for the rest of the run. */
export function dropFailedFallback(rt: LoopRuntime): boolean {
  if (rt.agent === rt.agents[0]?.adapter) return false;
  rt.droppedAgents.add(rt.agent.name);
  rt.deps.logger.warn(`${rt.agent.label} is left out for the rest of this run (its sign-in failed); the next loop runs on the next available agent`);
  return true;
}

function agentOrder(rt: LoopRuntime): string[] {
  return rt.agents.map((s) => s.adapter.name);
}
