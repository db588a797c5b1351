// The Docker sandbox's container dies with ralph: a watchdog process (cli/sandbox-watchdog/),
// one per ralph, started with the first container, outside ralph's process group and session,
// holding the read end of a pipe only ralph writes to. ralph tells it each container and private
// folder it makes; when ralph is gone (kill -9 included) the pipe closes and the watchdog removes
// them. A ralph that could not start it still removes them itself on every exit it sees, and the
// next start removes what a dead ralph left (removeDeadContainers, removeDeadRuntimeDirs).

import { fileURLToPath } from 'node:url';
import type { ProcessHandle, ProcessRunner } from '../platform/process.js';

/** The watchdog of each runner (one in a ralph process; a test's own runner gets its own). */
const watchdogs = new WeakMap<ProcessRunner, ProcessHandle>();

/** The watchdog's program, as built beside this file. */
function watchdogScript(): string {
  return fileURLToPath(new URL('../cli/sandbox-watchdog/sandbox-watchdog.js', import.meta.url));
}

/** Has the watchdog remove `container` and `folder` once this ralph is gone; starts it the first time. */
export function watchOverContainer(options: { runner: ProcessRunner; docker: string; env: NodeJS.ProcessEnv; container: string; folder: string }): void {
  let watchdog = watchdogs.get(options.runner);
  if (!watchdog || watchdog.pid === undefined) {
    // Its own group and session (no terminal signal reaches it), never keeping ralph alive.
    watchdog = options.runner.start(process.execPath, [watchdogScript(), options.docker], { env: options.env, group: true, background: true });
    watchdogs.set(options.runner, watchdog);
  }
  watchdog.write(`container ${options.container}\nfolder ${options.folder}\n`);
}
