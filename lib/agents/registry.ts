// Agents by name. Adding an agent is one adapter file, its name in config/schema.ts' AGENT_NAMES
// and one entry here.

import { AGENT_NAMES } from '../config/schema.js';
import type { AgentAdapter, AgentName } from './agent-adapter.js';
import { claudeAdapter } from './claude-code.js';
import { codexAdapter } from './codex.js';
import { geminiAdapter } from './gemini.js';
import { openCodeAdapter } from './opencode.js';

const BY_NAME = { claude: claudeAdapter, codex: codexAdapter, gemini: geminiAdapter, opencode: openCodeAdapter } satisfies Record<AgentName, AgentAdapter>;
const ADAPTERS: readonly AgentAdapter[] = AGENT_NAMES.map((name) => BY_NAME[name]);

/** The names ralph knows, in the order `--help` and errors list them. */
export function agentNames(): string[] {
  return ADAPTERS.map((a) => a.name);
}

/** The adapter for a name, or undefined when ralph knows no such agent. */
export function findAgent(name: string): AgentAdapter | undefined {
  return ADAPTERS.find((a) => a.name === name);
}
