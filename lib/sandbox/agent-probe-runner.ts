// How ralph asks an agent's CLI something before the run (`--version`, `--help`) when a sandbox
// will run it: a program found outside the project runs on the host, as before; one inside the
// project (its node_modules/.bin, a PATH entry in it, a relative command) is the agent's to
// replace, so it runs only inside the sandbox — or, where ralph cannot start the sandbox for a
// question (Docker: the CLI is the image's), not at all. Nothing under a path the agent can write
// runs on the host.

import { isAbsolute, resolve } from 'node:path';
import { findExecutable, resolvesWithin } from '../platform/find-executable.js';
import type { ProcessRunner, RunOptions, RunResult } from '../platform/process.js';

export type RunInside = (cmd: string, args: readonly string[]) => Promise<RunResult>;

export interface AgentProbeRunnerOptions {
  runner: ProcessRunner;
  projectDir: string;
  env: NodeJS.ProcessEnv;
  /** Runs a command inside the sandbox; absent: a command inside the project is not run. */
  runInside?: RunInside;
}

/** Where `cmd` is on the host (PATH, or relative to `cwd`), undefined when nowhere. */
export function locateCommand(cmd: string, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  if (cmd.includes('/')) return isAbsolute(cmd) ? cmd : resolve(cwd, cmd);
  return findExecutable(cmd, env);
}

/** A runner for a sandboxed run's questions to its agent CLIs (see the header). */
export function agentProbeRunner(options: AgentProbeRunnerOptions): ProcessRunner {
  return {
    start: (cmd, args, startOptions) => options.runner.start(cmd, args, startOptions),
    async run(cmd: string, args: readonly string[], runOptions: RunOptions = {}): Promise<RunResult> {
      const env = runOptions.env ?? options.env;
      const found = locateCommand(cmd, env, runOptions.cwd ?? options.projectDir);
      // The file found, not the name: a PATH lookup at spawn time could find another.
      if (found !== undefined && !resolvesWithin(found, [options.projectDir])) return options.runner.run(found, args, runOptions);
      if (options.runInside) return options.runInside(cmd, args);
      return notRun(cmd);
    },
  };
}

function notRun(cmd: string): RunResult {
  const spawnError = Object.assign(new Error(`${cmd} is inside the project: not run on the host`), { code: 'EACCES' }) as NodeJS.ErrnoException;
  return { code: null, signal: null, timedOut: false, aborted: false, pipesHeldOpen: false, spawnError, stdout: '', stderr: '' };
}
