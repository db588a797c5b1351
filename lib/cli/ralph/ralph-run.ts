// `ralph` without an immediate flag: configuration, startup checks, the project lock, then the
// loop, with Ctrl-C / SIGTERM / SIGHUP / SIGQUIT wired to stop it cleanly. Returns the exit code.

import type { RalphCliOptions } from './ralph-options.js';
import { runProject } from '../../loop/run-project.js';
import { keepRunningWithoutOutput } from '../error-funnel.js';
import { createDeps } from '../../platform/create-deps.js';
import { ralphPaths } from '../../state/paths.js';
import { readParallel } from '../../parallel/upcoming-units.js';

export async function runRalphLoop(options: RalphCliOptions, cwd: string): Promise<number> {
  const paths = ralphPaths(cwd);
  const deps = createDeps({ cwd, logFile: paths.ralphLog, verbose: options.flags.RALPH_VERBOSE === true });
  keepRunningWithoutOutput();
  process.once('SIGHUP', ignoreTerminalWriteErrors);
  try {
    const parallel = readParallel({ projectDir: cwd, homeDir: deps.homeDir, env: process.env, flags: options.flags });
    if (parallel > 1) {
      const { runParallel } = await import('../../parallel/run-parallel.js');
      return await runParallel({ projectDir: cwd, flags: options.flags, deps, parallel, haltOnFailure: options.haltOnFailure });
    }
    return await runProject({ projectDir: cwd, flags: options.flags, deps, fresh: options.fresh });
  } finally {
    process.off('SIGHUP', ignoreTerminalWriteErrors);
  }
}

// After a hang-up the terminal is gone: writing to it fails (EIO, or EPIPE for a pipe whose
// reader left), and an unhandled stream error would end ralph before it has stopped the agent
// and released the lock. ralph.log still gets every line.
function ignoreTerminalWriteErrors(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
}
