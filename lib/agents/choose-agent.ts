// Which agent a run calls, and its command and model, from the effective configuration:
// AGENT_PROVIDER (`--agent`), the agent's own command key (CLAUDE_CODE_CMD, CODEX_CMD, …) and
// AGENT_MODEL (Claude also reads its older CLAUDE_MODEL).

import type { RalphConfig } from '../config/schema.js';
import { RalphError } from '../errors.js';
import type { AgentAdapter } from './agent-adapter.js';
import { agentNames, findAgent } from './registry.js';

export function chooseAgent(config: RalphConfig): AgentAdapter {
  return agentByName(config.AGENT_PROVIDER);
}

export function agentByName(name: string): AgentAdapter {
  const agent = findAgent(name);
  if (agent) return agent;
  throw new RalphError('bad_config', `Unknown agent "${name}"`, { hint: `set AGENT_PROVIDER (or --agent) to one of: ${agentNames().join(', ')}` });
}

/** The configured command for an agent (words, not a shell line). */
export function agentCommandOf(config: RalphConfig, agent: AgentAdapter): string {
  return String(config[agent.commandKey]);
}

export function agentModelOf(config: RalphConfig, agent: AgentAdapter): string | undefined {
  return config.AGENT_MODEL || (agent.name === 'claude' ? config.CLAUDE_MODEL : '') || undefined;
}
