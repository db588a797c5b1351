// Choosing the agent: --agent and AGENT_PROVIDER name it, its own key gives its command, and
// AGENT_MODEL (or Claude's older CLAUDE_MODEL) its model.

import { describe, expect, it } from 'vitest';
import { agentByName, agentCommandOf, agentModelOf, chooseAgent } from '../../../lib/agents/choose-agent.js';
import { defaultConfig } from '../../../lib/config/schema.js';
import { parseRalphArgs } from '../../../lib/cli/ralph/ralph-options.js';
import { RalphError } from '../../../lib/errors.js';

describe('choosing the agent', () => {
  it('is Claude by default, with CLAUDE_CODE_CMD as its command', () => {
    const config = { ...defaultConfig(), CLAUDE_CODE_CMD: 'npx @anthropic-ai/claude-code' };
    const agent = chooseAgent(config);
    expect(agent.name).toBe('claude');
    expect(agentCommandOf(config, agent)).toBe('npx @anthropic-ai/claude-code');
  });

  it('takes AGENT_MODEL first, then CLAUDE_MODEL for Claude', () => {
    const claude = agentByName('claude');
    expect(agentModelOf({ ...defaultConfig(), CLAUDE_MODEL: 'opus' }, claude)).toBe('opus');
    expect(agentModelOf({ ...defaultConfig(), CLAUDE_MODEL: 'opus', AGENT_MODEL: 'sonnet' }, claude)).toBe('sonnet');
    expect(agentModelOf(defaultConfig(), claude)).toBeUndefined();
  });

  it('an agent ralph does not know is a clear error naming the setting', () => {
    expect(() => agentByName('cursor')).toThrow(RalphError);
    expect(() => agentByName('cursor')).toThrow(/Unknown agent "cursor"/);
  });

  it('--agent sets AGENT_PROVIDER and refuses a name that is no agent, naming the flag', () => {
    expect(parseRalphArgs(['--agent', 'codex']).flags.AGENT_PROVIDER).toBe('codex');
    expect(() => parseRalphArgs(['--agent', 'cursor'])).toThrow(/--agent must be one of claude, codex, gemini, opencode, got "cursor"/);
  });

  it('--fallback-agent is repeatable (and takes comma lists) into FALLBACK_AGENTS, refusing a name that is no agent', () => {
    expect(parseRalphArgs(['--fallback-agent', 'codex', '--fallback-agent=gemini,opencode']).flags.FALLBACK_AGENTS).toBe('codex,gemini,opencode');
    expect(() => parseRalphArgs(['--fallback-agent', 'cursor'])).toThrow(/--fallback-agent must be one of claude, codex, gemini, opencode, got "cursor"/);
  });
});
