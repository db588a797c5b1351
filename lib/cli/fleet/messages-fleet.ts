// What `ralph-fleet` prints after `init`: the steps still to take, in order, from the doctor's
// checks (its help is rendered from its command table, fleet-args.ts).

import type { FleetCheck } from '../../fleet/fleet-doctor.js';

/** After `init`: each failed check's fix, in order, then the first label. */
export function fleetInitNextSteps(checks: readonly FleetCheck[], label: string): string {
  const steps = checks.filter((check) => !check.ok).map((check) => `${check.name}: ${check.detail}\n     ${check.fix ?? ''}`.trimEnd());
  const stopped = checks.length > 0 && !checks.at(-1)!.ok && ['gh installed', 'gh logged in', 'repository on GitHub'].includes(checks.at(-1)!.name);
  if (stopped) steps.push('then run ralph-fleet doctor: it checks the rest (workflow on the default branch, labels, secret, pull requests)');
  steps.push(`label an issue ${JSON.stringify(label)}, or run ralph-fleet start N`);
  return ['Next:', ...steps.map((step, i) => `  ${i + 1}. ${step}`), 'ralph-fleet doctor checks it all again; see docs/fleet.md.', ''].join('\n');
}
