// `ralph`: parses the command line, answers the immediate flags (help, version, status, config,
// doctor, circuit and session resets) and otherwise starts the loop. Heavy modules are imported
// only by the action that needs them, to keep `--help`/`--status` start-up fast.

import { runMain } from './error-funnel.js';
import { readPackageVersion } from './package-info.js';
import { runFastPath } from './ralph-fast-path.js';
import type { RalphCliOptions } from './ralph-options.js';

export async function mainRalph(argv: string[]): Promise<number> {
  const cwd = process.cwd();
  const fast = await runFastPath(argv, cwd);
  if (fast !== undefined) return fast;
  const { parseRalphArgs, renderHelp } = await import('./ralph-options.js');
  const options = parseRalphArgs(argv);
  switch (options.action) {
    case 'help':
      process.stdout.write(`${await renderHelp()}\n`);
      return 0;
    case 'version':
      process.stdout.write(`ralph ${readPackageVersion()}\n`);
      return 0;
    case 'status': {
      const { showStatus } = await import('./status.js');
      return showStatus({ projectDir: cwd, json: options.json, jq: options.jq, write: (t) => process.stdout.write(t) });
    }
    case 'config':
      return showConfig(options, cwd);
    case 'doctor': {
      const { runDoctor } = await import('./doctor.js');
      return runDoctor({ projectDir: cwd, env: process.env, flags: options.flags, write: (t) => process.stdout.write(t) });
    }
    case 'reset-circuit':
    case 'circuit-status':
    case 'reset-session': {
      const { runStateCommand } = await import('./state-commands.js');
      return runStateCommand(options.action, { projectDir: cwd, env: process.env, write: (t) => process.stdout.write(t) });
    }
    case 'rollback': {
      const { runRollback } = await import('./rollback.js');
      return runRollback({
        projectDir: cwd,
        target: options.rollbackTarget,
        force: options.force,
        json: options.json,
        jq: options.jq,
        write: (t) => process.stdout.write(t),
      });
    }
    case 'queue': {
      const { runQueueCommand } = await import('./queue-commands.js');
      return runQueueCommand(options.queue!, { projectDir: cwd, flags: options.flags, write: (t) => process.stdout.write(t) });
    }
    case 'monitor': {
      const { startMonitor } = await import('./ralph-monitor-launch.js');
      return startMonitor(options, cwd);
    }
    case 'run': {
      const { runRalphLoop } = await import('./ralph-run.js');
      return runRalphLoop(options, cwd);
    }
  }
}

async function showConfig(options: RalphCliOptions, cwd: string): Promise<number> {
  const { loadConfig } = await import('../config/load-config.js');
  const { formatConfigJson, formatConfigText } = await import('../config/format-config.js');
  const { homedir } = await import('node:os');
  const result = loadConfig({ projectDir: cwd, homeDir: homedir(), env: process.env, flags: options.flags });
  const { formatConfigProblem } = await import('../config/problems.js');
  for (const warning of result.warnings) process.stderr.write(`Warning: ${formatConfigProblem(warning)}\n`);
  if (options.json) {
    const { printJson } = await import('./print-json.js');
    await printJson(formatConfigJson(result), options.jq, (t) => process.stdout.write(t));
    return 0;
  }
  process.stdout.write(formatConfigText(result));
  return 0;
}

await runMain(mainRalph);
