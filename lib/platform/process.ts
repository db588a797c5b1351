// ProcessRunner: the only way the code starts processes. Always an argv array, never a shell
// string. `start` gives a small handle (pid, stdin, output callbacks, kill, a `done` promise);
// `run` is the short-command form that collects the output (git, tmux, gh, bd). The runner owns
// timeouts, abort, process-group kill and pipe draining (lib/platform/start-process.ts), so no
// caller sees a ChildProcess or keeps a timer of its own. A git command carries overrides so
// that it runs no program the repository names (lib/platform/git-hardening.ts).

import { hardenGitRun, hardenGitStart, isGitCommand } from './git-hardening.js';
import { startProcess } from './start-process.js';

export { PIPE_DRAIN_MS } from './start-process.js';

export type { ProcessExit, ProcessHandle, ProcessRunner, RunOptions, RunResult, StartOptions } from './process-types.js';
import type { ProcessRunner } from './process-types.js';

// Every git command goes through lib/platform/git-hardening.ts: it runs no repository code.
export const nodeProcessRunner: ProcessRunner = {
  start: (cmd, args, options = {}) => startProcess(cmd, args, isGitCommand(cmd) ? hardenGitStart(args, options) : options),
  async run(cmd, args, given = {}) {
    const { gitReadsNoContent: _vouched, ...options } = isGitCommand(cmd) ? await hardenGitRun(args, given) : given;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const handle = startProcess(cmd, args, {
      ...options,
      input: options.input ?? '',
      onStdout: (chunk) => out.push(chunk),
      onStderr: (chunk) => err.push(chunk),
    });
    const exit = await handle.done;
    return { ...exit, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
  },
};
