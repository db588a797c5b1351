// ProcessRunner: the only way the code starts processes. Always an argv array, never a shell
// string. `run` is for short commands whose output we want (git, tmux, gh); `spawnTree`
// starts a long-lived child in its own process group so the whole tree can be signalled.

import { spawn, type ChildProcess } from 'node:child_process';

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** Kill the command (SIGKILL to its group) after this many ms. */
  timeoutMs?: number;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The executable could not be started (ENOENT, EACCES). */
  spawnError?: NodeJS.ErrnoException;
}

export interface SpawnTreeOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export interface ProcessRunner {
  run(cmd: string, args: readonly string[], options?: RunOptions): Promise<RunResult>;
  spawnTree(cmd: string, args: readonly string[], options?: SpawnTreeOptions): ChildProcess;
  /** Signal a whole process group started by spawnTree; ignores groups already gone. */
  killTree(child: ChildProcess, signal: NodeJS.Signals): void;
}

export const nodeProcessRunner: ProcessRunner = {
  run(cmd, args, options = {}) {
    return new Promise((resolve) => {
      let child: ChildProcess;
      try {
        child = spawn(cmd, [...args], {
          cwd: options.cwd,
          env: options.env,
          stdio: ['pipe', 'pipe', 'pipe'],
          detached: options.timeoutMs !== undefined,
        });
      } catch (error) {
        resolve({ code: null, signal: null, stdout: '', stderr: '', timedOut: false, spawnError: error as NodeJS.ErrnoException });
        return;
      }
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let timedOut = false;
      let spawnError: NodeJS.ErrnoException | undefined;
      const timer =
        options.timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              timedOut = true;
              killGroup(child, 'SIGKILL');
            }, options.timeoutMs);
      child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', (error: NodeJS.ErrnoException) => {
        spawnError = error;
      });
      child.stdin?.on('error', () => {
        /* the child may exit before reading its input */
      });
      child.stdin?.end(options.input ?? '');
      child.on('close', (code, signal) => {
        if (timer) clearTimeout(timer);
        resolve({
          code,
          signal,
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
          timedOut,
          spawnError,
        });
      });
    });
  },

  spawnTree(cmd, args, options = {}) {
    return spawn(cmd, [...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // A new process group, so a timeout or Ctrl-C can kill the agent and everything it started.
      detached: true,
    });
  },

  killTree(child, signal) {
    killGroup(child, signal);
  },
};

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}
