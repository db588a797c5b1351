// What `ralph-fleet` prints after `init`: the three steps (its help is rendered from its command
// table, fleet-args.ts).

import type { FleetAgent } from '../../fleet/fleet-agents.js';

/** After `init`: the README's three steps, with this file, this agent's secrets and this label. */
export function fleetInitNextSteps(file: string, agent: FleetAgent, label: string): string {
  return [
    'Next:',
    `  1. commit ${file}`,
    `  2. ${agent.secretHint}`,
    `     e.g. gh secret set ${agent.secrets[0]!}`,
    `  3. label an issue ${JSON.stringify(label)}, or run ralph-fleet start N`,
    'See the README, "Running on GitHub Actions".',
    '',
  ].join('\n');
}
