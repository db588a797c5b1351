// The agents a fleet job can run, with what the generated workflow installs for each (the CLI's
// npm package, pinned to the version ralph was tested against) and the secrets each needs. A
// job fails at once when none of an agent's secrets is set (an empty secret is an unset one).

import { TESTED_AGENT_CLIS } from '../agents/tested-clis.js';

export type FleetAgentName = 'claude' | 'codex' | 'gemini';

export interface FleetAgent {
  name: FleetAgentName;
  /** `package@version`, as `npm install -g` takes it. */
  npmPackage: string;
  /** The secrets the job passes to the agent; any one of them is enough. */
  secrets: readonly string[];
  /** How a user gets a credential, for the error and the generated file's comment. */
  secretHint: string;
}

export const FLEET_AGENTS: readonly FleetAgent[] = [
  {
    name: 'claude',
    npmPackage: TESTED_AGENT_CLIS.claude,
    secrets: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'],
    secretHint: 'add the repository secret ANTHROPIC_API_KEY, or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`',
  },
  {
    name: 'codex',
    npmPackage: TESTED_AGENT_CLIS.codex,
    secrets: ['OPENAI_API_KEY'],
    secretHint: 'add the repository secret OPENAI_API_KEY',
  },
  {
    name: 'gemini',
    npmPackage: TESTED_AGENT_CLIS.gemini,
    secrets: ['GEMINI_API_KEY'],
    secretHint: 'add the repository secret GEMINI_API_KEY (https://aistudio.google.com/apikey)',
  },
];

export function findFleetAgent(name: string): FleetAgent | undefined {
  return FLEET_AGENTS.find((agent) => agent.name === name);
}

/** The agent's secrets that hold a value in `env`. */
export function presentSecrets(agent: FleetAgent, env: NodeJS.ProcessEnv): string[] {
  return agent.secrets.filter((name) => (env[name] ?? '').trim() !== '');
}
