// Agents by name. Adding an agent is one adapter file and one entry here.

import type { AgentAdapter } from './agent-adapter.js';
import { claudeAdapter } from './claude-code.js';
import { codexAdapter } from './codex.js';
import { geminiAdapter } from './gemini.js';
import { openCodeAdapter } from './opencode.js';

const ADAPTERS: readonly AgentAdapter[] = [claudeAdapter, codexAdapter, geminiAdapter, openCodeAdapter];

/** The names ralph knows, in the order `--help` and errors list them. */
export function agentNames(): string[] {
  return ADAPTERS.map((a) => a.name);
}

/** The adapter for a name, or undefined when ralph knows no such agent. */
export function findAgent(name: string): AgentAdapter | undefined {
  return ADAPTERS.find((a) => a.name === name);
}
