// `ralph-fleet`: ralph on GitHub Actions. The first word is the command; each takes its own flags.
// `init` writes the workflow; `job` is the workflow's one step; `sweep` is its schedule's list;
// `status`, `start`, `stop` and `logs` look after the fleet from a laptop, through gh.

import { runMain } from '../error-funnel.js';
import { parseFleetArgs, renderFleetHelp } from './fleet-args.js';
import { fleetInitNextSteps } from './messages-fleet.js';
import { printHelpOrVersion } from '../help-or-version.js';
import { readPackageVersion } from '../package-info.js';

export async function mainFleet(argv: string[]): Promise<number> {
  const command = parseFleetArgs(argv);
  if (command === 'help' || command === 'version') return printHelpOrVersion(command, 'ralph-fleet', renderFleetHelp);
  const write = (line: string) => process.stdout.write(line);
  if (command.kind === 'init') {
    const { initWorkflow } = await import('../../fleet/init-workflow.js');
    const { relative } = await import('node:path');
    const result = initWorkflow(process.cwd(), command, readPackageVersion(), Date.now());
    if (result.backup) write(`Kept the previous file as ${relative(process.cwd(), result.backup)}\n`);
    write(`Wrote ${relative(process.cwd(), result.path)}\n`);
    write(fleetInitNextSteps(relative(process.cwd(), result.path), result.workflow.agent, result.workflow.label));
    return 0;
  }
  if (command.kind === 'job') {
    const { runFleetJob } = await import('../../fleet/job.js');
    return runFleetJob(command, { projectDir: process.cwd(), env: process.env });
  }
  const { runFleetView } = await import('../../fleet/fleet-view.js');
  return runFleetView(command, { projectDir: process.cwd(), env: process.env, write });
}

await runMain(mainFleet);
