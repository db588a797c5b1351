// ProcessRunner: the only way the code starts processes. Always an argv array, never a shell
// string. `start` gives a small handle (pid, stdin, output callbacks, kill, a `done` promise);
// `run` is the short-command form that collects the output (git, tmux, gh, bd). The runner owns
// timeouts, abort, process-group kill and pipe draining (lib/platform/start-process.ts), so no
// caller sees a ChildProcess or keeps a timer of its own. A git command carries overrides so
// that nothing the agent wrote can steer it (lib/platform/git-gateway.ts).

import { isGitCommand, prepareGitRun, prepareGitStart } from './git-gateway.js';
import { startProcess } from './start-process.js';

export { PIPE_DRAIN_MS } from './start-process.js';

export type { ProcessExit, ProcessHandle, ProcessRunner, RunOptions, RunResult, StartOptions } from './process-types.js';
import type { ProcessRunner } from './process-types.js';

// Every git command goes through the git gateway (lib/platform/git-gateway.ts).
export const nodeProcessRunner: ProcessRunner = {
  start(cmd, args, options = {}) {
    if (!isGitCommand(cmd)) return startProcess(cmd, args, options);
    const call = prepareGitStart(args, options);
    const handle = startProcess(cmd, call.args, { ...options, env: call.env });
    void handle.done.then((exit) => call.after(exit.code));
    return handle;
  },
  async run(cmd, args, given = {}) {
    const { gitReadsNoContent: _vouched, ...options } = given;
    const call = isGitCommand(cmd) ? await prepareGitRun(args, given) : undefined;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const handle = startProcess(cmd, call ? call.args : args, {
      ...options,
      ...(call ? { env: call.env } : {}),
      input: options.input ?? '',
      onStdout: (chunk) => out.push(chunk),
      onStderr: (chunk) => err.push(chunk),
    });
    const exit = await handle.done;
    call?.after(exit.code);
    return { ...exit, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
  },
};
