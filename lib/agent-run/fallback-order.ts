// Which agent runs the next loop: the first of the run's agents, in order
// (AGENT_PROVIDER, then FALLBACK_AGENTS), that is neither left out of the run nor at a usage
// limit that has not reset yet. The primary comes first, so ralph goes back to it once its
// limit resets; when every agent is limited, the run waits for the earliest reset. Pure.

export interface AgentLimit {
  /** When the agent may be called again (epoch ms; the usage-limit margin included). */
  resume_at_ms: number;
  resume_at: string;
  reason: string;
  detected_at: string;
}

/** Agent name → its limit, as persisted in .ralph/.agent_limits. */
export type AgentLimits = Record<string, AgentLimit>;

export type AgentPick = { kind: 'agent'; name: string } | { kind: 'wait'; until: number; reason: string } | { kind: 'none' };

export function pickAgent(order: readonly string[], limits: AgentLimits, dropped: ReadonlySet<string>, now: number): AgentPick {
  const candidates = order.filter((name) => !dropped.has(name));
  if (candidates.length === 0) return { kind: 'none' };
  const free = candidates.find((name) => !isLimited(limits[name], now));
  if (free !== undefined) return { kind: 'agent', name: free };
  let earliest: { name: string; limit: AgentLimit } | undefined;
  for (const name of candidates) {
    const limit = limits[name]!;
    if (!earliest || limit.resume_at_ms < earliest.limit.resume_at_ms) earliest = { name, limit };
  }
  return { kind: 'wait', until: earliest!.limit.resume_at_ms, reason: `${earliest!.name}: ${earliest!.limit.reason}` };
}

/** The limits still in force at `now` (a reset one is forgotten). */
export function activeLimits(limits: AgentLimits, now: number): AgentLimits {
  return Object.fromEntries(Object.entries(limits).filter(([, limit]) => isLimited(limit, now)));
}

function isLimited(limit: AgentLimit | undefined, now: number): boolean {
  return limit !== undefined && limit.resume_at_ms > now;
}
