// ProcessRunner: the only way the code starts processes. Always an argv array, never a shell
// string. `start` gives a small handle (pid, stdin, output callbacks, kill, a `done` promise);
// `run` is the short-command form that collects the output (git, tmux, gh, bd). The runner owns
// timeouts, abort, process-group kill and pipe draining (lib/platform/start-process.ts), so no
// caller sees a ChildProcess or keeps a timer of its own. A git command carries overrides so
// that it runs no program the repository names (lib/platform/git-hardening.ts).

import { hardenGitRun, hardenGitStart, isGitCommand } from './git-hardening.js';
import { startProcess } from './start-process.js';

export { PIPE_DRAIN_MS } from './start-process.js';

export interface StartOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** 'pipe' (default): output through the callbacks; 'inherit': the user's own terminal. */
  stdio?: 'pipe' | 'inherit';
  /** Written to stdin, which is then closed. Without it stdin stays open for write()/end(). */
  input?: string;
  /**
   * Start the process in its own process group, so a timeout, an abort or kill() reaches
   * everything it started, and whatever it leaves in the group is killed once it exits.
   * Default: whenever there is a timeout or a signal. A group has no terminal access.
   */
  group?: boolean;
  /** Stop the process (SIGTERM, then SIGKILL after graceMs) after this many ms. */
  timeoutMs?: number;
  /** Stop the process the same way when this aborts (Ctrl-C). */
  signal?: AbortSignal;
  /** SIGTERM → SIGKILL grace for a stop (default 2 s). */
  graceMs?: number;
  /** After the process exits, how long its pipes may stay open (default PIPE_DRAIN_MS). */
  drainMs?: number;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  /** Never keep ralph alive for this process (a background check). */
  background?: boolean;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Stopped because timeoutMs ran out. */
  timedOut: boolean;
  /** Stopped because the signal aborted. */
  aborted: boolean;
  /** The executable could not be started (ENOENT, EACCES). */
  spawnError?: NodeJS.ErrnoException;
  /**
   * The process had exited, but something outside its group (a daemon started with setsid)
   * still held its stdout or stderr when the drain time ran out; the pipes were closed.
   */
  pipesHeldOpen: boolean;
}

export interface ProcessHandle {
  /** Also the process group id when started as a group; undefined when it could not start. */
  readonly pid: number | undefined;
  write(chunk: string | Buffer): void;
  end(chunk?: string | Buffer): void;
  /** Signals the process's whole group (or the process, when it has none); ignores one gone. */
  kill(signal: NodeJS.Signals): void;
  /** Settles once the process has exited and its pipes have closed or been drained. */
  readonly done: Promise<ProcessExit>;
}

export type RunOptions = Omit<StartOptions, 'stdio' | 'onStdout' | 'onStderr'> & {
  /**
   * git only: the caller vouches that this call reads no file of the working tree, so no filter
   * or diff driver can run; the configuration is then not read for drivers added since the run
   * started (the pinned and forced keys still apply). The content snapshot's diff-files against
   * ralph's own index is such a call (lib/analysis/stat-index.ts).
   */
  gitReadsNoContent?: boolean;
};

export interface RunResult extends ProcessExit {
  stdout: string;
  stderr: string;
}

export interface ProcessRunner {
  start(cmd: string, args: readonly string[], options?: StartOptions): ProcessHandle;
  run(cmd: string, args: readonly string[], options?: RunOptions): Promise<RunResult>;
}

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
