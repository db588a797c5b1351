// `ralph-fleet`: ralph on GitHub Actions. The first word is the command; each takes its own flags.
// `init` writes the workflow; `job` is the workflow's one step; `sweep` is its schedule's list;
// `status`, `start`, `stop` and `logs` look after the fleet from a laptop, through gh.

import { runMain } from '../error-funnel.js';
import { parseFleetArgs, renderFleetHelp } from './fleet-args.js';
import { fleetInitNextSteps } from './messages-fleet.js';
import { printHelpOrVersion } from '../help-or-version.js';
import { PACKAGE_ROOT } from '../package-info.js';
import { createPrompter } from '../prompts.js';
import { RalphError } from '../../errors.js';

export async function mainFleet(argv: string[]): Promise<number> {
  const command = parseFleetArgs(argv);
  if (command === 'help' || command === 'version') return printHelpOrVersion(command, 'ralph-fleet', renderFleetHelp);
  const write = (line: string) => process.stdout.write(line);
  if (command.kind === 'init' || command.kind === 'doctor') {
    const { nodeProcessRunner } = await import('../../platform/process.js');
    const { runFleetDoctor, formatDoctor } = await import('../../fleet/fleet-doctor.js');
    const { findFleetAgent } = await import('../../fleet/fleet-agents.js');
    const cwd = process.cwd();
    const cli = { runner: nodeProcessRunner, cwd, env: process.env };
    const confirm = labelConsent(command.yes);
    if (command.kind === 'doctor') {
      const agent = findFleetAgent(command.agent);
      if (!agent) throw new RalphError('bad_flag', `--agent: unknown agent '${command.agent}'`, { hint: 'use claude, codex or gemini' });
      const checks = await runFleetDoctor({ agent, label: command.label, workflow: command.workflow, cli, confirm });
      write(formatDoctor(checks));
      const failed = checks.filter((check) => !check.ok).length;
      write(
        failed === 0
          ? 'Ready: label an issue, or run ralph-fleet start N\n'
          : `${failed} check${failed > 1 ? 's' : ''} failed: run the fix under each, then ralph-fleet doctor again\n`,
      );
      return failed === 0 ? 0 : 1;
    }
    const { initWorkflow } = await import('../../fleet/init-workflow.js');
    const { relative } = await import('node:path');
    const result = await initWorkflow(command, { projectDir: cwd, packageRoot: PACKAGE_ROOT, runner: nodeProcessRunner, env: process.env, now: Date.now() });
    if (result.backup) write(`Kept the previous file as ${relative(cwd, result.backup)}\n`);
    write(
      `Wrote ${relative(cwd, result.path)} and ${result.workflow.ralph.path} (ralph ${result.workflow.ralph.version}, sha256 ${result.workflow.ralph.sha256.slice(0, 12)}…)\n`,
    );
    const checks = await runFleetDoctor({ agent: result.workflow.agent, label: result.workflow.label, workflow: result.workflow.workflowFile, cli, confirm });
    write(fleetInitNextSteps(checks, result.workflow.label));
    return 0;
  }
  if (command.kind === 'job') {
    const { runFleetJob } = await import('../../fleet/job.js');
    return runFleetJob(command, { projectDir: process.cwd(), env: process.env });
  }
  const { runFleetView } = await import('../../fleet/fleet-view.js');
  return runFleetView(command, { projectDir: process.cwd(), env: process.env, write });
}

/** Consent to create labels: --yes, or a yes on a terminal; nobody to ask means no. */
function labelConsent(yes: boolean): (question: string) => Promise<boolean> {
  return async (question) => {
    if (yes) return true;
    if (!process.stdin.isTTY) return false;
    const prompter = createPrompter({ input: process.stdin, output: process.stderr });
    try {
      return await prompter.confirm(question, true);
    } finally {
      prompter.close();
    }
  };
}

await runMain(mainFleet);
