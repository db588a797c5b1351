// Which agent the run calls, held for one run: the run's agents in order (AGENT_PROVIDER first,
// then the FALLBACK_AGENTS found at startup), the one the next loop calls, the usage limits of
// each and the fallbacks left out. Before a loop the run goes to the first agent that is not at
// its usage limit (a fallback, or back to the primary once its limit has reset); at a usage limit
// the agent's reset time is remembered; a fallback whose sign-in fails is left out for the rest of
// the run. The limits are held in memory and written through to .ralph/.agent_limits (a restarted
// run reads them back once). Only the operations below change what is held.

import { activeLimits, pickAgent, type AgentLimits, type AgentPick } from './fallback-order.js';
import { formatClockTime } from '../limits/rate-window.js';
import { formatIsoTimestamp } from '../state/timestamps.js';
import { sessionLabel } from '../sessions/agent-session.js';
import { withAgentLimit } from './agent-limits.js';
import type { AgentAdapter } from '../agents/agent-adapter.js';
import type { HeldState } from '../state/held-state.js';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/deps.js';

/** One agent the run may call, with its command as resolved at startup. */
export interface AgentSlot {
  readonly adapter: AgentAdapter;
  readonly command: string;
  /** The CLI accepts `--max-budget-usd` (Claude, from its `--help`; asked only with a cost budget). */
  readonly acceptsMaxBudget?: boolean;
}

export class AgentChoice {
  #current: AgentSlot;
  /** Agents left out for the rest of the run (a fallback agent whose sign-in failed). */
  readonly #dropped = new Set<string>();

  constructor(
    private readonly slots: readonly AgentSlot[],
    /** Each agent's usage-limit reset while the run goes on without it (.agent_limits). */
    private readonly limits: HeldState<AgentLimits>,
    private readonly effects: { readonly clock: Clock; readonly logger: Pick<Logger, 'warn' | 'success'> },
  ) {
    this.#current = slots[0]!;
  }

  /** The agent the next loop calls (agents/registry.ts): the primary, or a fallback while the primary is limited. */
  get agent(): AgentAdapter {
    return this.#current.adapter;
  }

  /** Its command (CLAUDE_CODE_CMD, …) as resolved at startup. */
  get command(): string {
    return this.#current.command;
  }

  /** The run may call more than one agent. */
  get hasFallbacks(): boolean {
    return this.slots.length > 1;
  }

  /** Goes to the agent the next loop runs on; a wait when every agent is limited. */
  chooseForLoop(): AgentPick {
    const now = this.effects.clock.now();
    const before = this.limits.value;
    // Only a limit that has ended changes them: the same limits are not written again.
    const active = activeLimits(before, now);
    if (Object.keys(active).length !== Object.keys(before).length) this.limits.set(active);
    const pick = pickAgent(this.#order(), this.limits.value, this.#dropped, now);
    if (pick.kind !== 'agent' || pick.name === this.agent.name) return pick;
    const slot = this.slots.find((s) => s.adapter.name === pick.name)!;
    const previous = this.agent;
    this.#current = slot;
    const { logger } = this.effects;
    if (slot === this.slots[0]) logger.success(`${sessionLabel(slot.adapter)}'s usage limit has reset: back to ${slot.adapter.label}`);
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
  limitCurrent(resumeAt: number, reason: string): AgentPick {
    const now = this.effects.clock.now();
    this.limits.set(
      withAgentLimit(this.limits.value, this.agent.name, {
        resume_at_ms: resumeAt,
        resume_at: formatIsoTimestamp(resumeAt),
        reason,
        detected_at: formatIsoTimestamp(now),
      }),
    );
    return pickAgent(this.#order(), this.limits.value, this.#dropped, now);
  }

  /** A limit the user chose to retry now: every agent may be tried again. */
  forgetLimits(): void {
    if (Object.keys(this.limits.value).length === 0) return;
    this.limits.set({});
  }

  /** A fallback agent (not the primary) whose sign-in failed: left out for the rest of the run. */
  dropFailedFallback(): boolean {
    if (this.#current === this.slots[0]) return false;
    this.#dropped.add(this.agent.name);
    this.effects.logger.warn(`${this.agent.label} is left out for the rest of this run (its sign-in failed); the next loop runs on the next available agent`);
    return true;
  }

  #order(): string[] {
    return this.slots.map((s) => s.adapter.name);
  }
}
