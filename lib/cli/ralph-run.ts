// `ralph` without an immediate flag: configuration, startup checks, the project lock, then the
// loop, with Ctrl-C / SIGTERM wired to stop it cleanly. Returns the exit code.

import type { RalphCliOptions } from './ralph-options.js';
import { runProject } from '../loop/run-project.js';
import { createDeps } from '../platform/create-deps.js';
import { ralphPaths } from '../state/paths.js';

export async function runRalphLoop(options: RalphCliOptions, cwd: string): Promise<number> {
  const paths = ralphPaths(cwd);
  const deps = createDeps({ cwd, logFile: paths.ralphLog, verbose: options.flags.RALPH_VERBOSE === true });
  return runProject({ projectDir: cwd, flags: options.flags, deps, fresh: options.fresh });
}
