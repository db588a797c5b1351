// The shapes of ProcessRunner (lib/platform/process.ts): its options, handle, results. Apart
// from the runner so that the spawner and the git gateway, which the runner uses, can name
// them without importing it.

export interface StartOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** 'pipe' (default): output through the callbacks; 'inherit': the user's own terminal. */
  stdio?: 'pipe' | 'inherit';
  /** Files opened read-only and given to the process as file descriptors 3, 4, … (a sandbox's seccomp filter). */
  inheritFiles?: readonly string[];
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
  /**
   * The process runs the project's own code (the agent, the gate's commands): a command given by
   * name is looked up on the full PATH. Without it, a name is a host tool of ralph's, never
   * taken from a folder the agent can write (start-process.ts).
   */
  projectCode?: boolean;
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
