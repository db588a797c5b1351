// `ralph` (all but the quick answers of ralph.ts): parses the command line, answers the
// immediate flags (help, version, status, config, doctor, circuit and session resets) and
// otherwise starts the loop, through one dispatcher; the most common command lines skip the
// parser (ralph-fast-path.ts). Heavy modules are imported only by the action that needs them.

import { runMain } from '../error-funnel.js';
import { readPackageVersion } from '../package-info.js';
import { readFastOptions, readPrerenderedHelp } from '../ralph-fast-path.js';
import type { RalphCliOptions } from './ralph-options.js';

export async function mainRalph(argv: string[]): Promise<number> {
  const cwd = process.cwd();
  const fast = readFastOptions(argv);
  if (fast !== undefined) return dispatchRalph(fast, cwd, { prerendered: true });
  // Before the modules of the loop load: their start-up alone would grow V8's young generation
  // to its maximum, which these settings only stop from growing, never shrink. The quick
  // answers above need no tuning (node:v8 costs them start-up time).
  const { tuneHeapForLongRun } = await import('../../platform/heap-tuning.js');
  tuneHeapForLongRun();
  const { parseRalphArgs } = await import('./ralph-options.js');
  return dispatchRalph(parseRalphArgs(argv), cwd, { prerendered: false });
}

/**
 * ralph's one dispatcher: each action to the module that answers it. `prerendered`: the command
 * line came through the fast path, whose help is the one the build rendered from the table.
 */
async function dispatchRalph(options: RalphCliOptions, cwd: string, { prerendered }: { prerendered: boolean }): Promise<number> {
  switch (options.action) {
    case 'help': {
      const help = prerendered ? readPrerenderedHelp() : undefined;
      if (help !== undefined) process.stdout.write(help);
      else {
        const { renderRalphHelp } = await import('./ralph-help.js');
        process.stdout.write(`${renderRalphHelp()}\n`);
      }
      return 0;
    }
    case 'version':
      process.stdout.write(`ralph ${readPackageVersion()}\n`);
      return 0;
    case 'status': {
      const { showStatus } = await import('./status.js');
      return showStatus({ projectDir: cwd, json: options.json, jq: options.jq, write: (t) => process.stdout.write(t) });
    }
    case 'config': {
      const { showConfig } = await import('./show-config.js');
      return showConfig(options, cwd);
    }
    case 'doctor': {
      const { runDoctor } = await import('./doctor.js');
      return runDoctor({ projectDir: cwd, env: process.env, flags: options.flags, write: (t) => process.stdout.write(t) });
    }
    case 'sandbox-build': {
      const { sandboxBuildCommand } = await import('./sandbox-build.js');
      return sandboxBuildCommand({ projectDir: cwd, env: process.env, flags: options.flags, write: (t) => process.stdout.write(t) });
    }
    case 'reset-circuit':
    case 'circuit-status':
    case 'reset-session': {
      const { runStateCommand } = await import('./state-commands.js');
      return runStateCommand(options.action, { projectDir: cwd, env: process.env, write: (t) => process.stdout.write(t) });
    }
    case 'accept-item': {
      const { acceptPlanItems } = await import('./accept-item.js');
      return acceptPlanItems({ projectDir: cwd, env: process.env, items: options.acceptItems ?? [], write: (t) => process.stdout.write(t) });
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
    case 'parallel-abandon': {
      const { abandonParallelRun } = await import('../../parallel/run-parallel.js');
      const { createDeps } = await import('../../platform/create-deps.js');
      const { ralphPaths } = await import('../../state/paths.js');
      return abandonParallelRun({ projectDir: cwd, deps: createDeps({ cwd, logFile: ralphPaths(cwd).ralphLog, verbose: false }) });
    }
    case 'queue': {
      const { runQueueCommand } = await import('../queue/queue-commands.js');
      return runQueueCommand(options.queue!, { projectDir: cwd, flags: options.flags, write: (t) => process.stdout.write(t) });
    }
    case 'monitor': {
      const { startMonitor } = await import('./ralph-monitor-launch.js');
      return startMonitor(options, cwd);
    }
    case 'demo': {
      const { runDemo } = await import('./demo.js');
      return runDemo(options);
    }
    case 'run': {
      const { runRalphLoop } = await import('./ralph-run.js');
      if (!options.web) return runRalphLoop(options, cwd);
      const { withWebView } = await import('./ralph-web.js');
      return withWebView(options.web, cwd, () => runRalphLoop(options, cwd));
    }
  }
}

/** Runs `ralph` on this process's command line and sets its exit code (what ralph.ts starts). */
export function main(): Promise<void> {
  return runMain(mainRalph);
}
