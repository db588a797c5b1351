// One process from spawn to gone, behind ProcessRunner.start: spawned from an argv (never a
// shell), optionally in its own process group; a timeout or an abort stops the group (SIGTERM,
// then SIGKILL after a grace period, for whatever ignores SIGTERM); once the process exits, its
// pipes get a drain period (a daemon that escaped the group may hold them open forever), then
// whatever it left in its group is killed. The only file that touches child_process.

import type { ChildProcess } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostToolOnPath, untrustedRoots } from './find-executable.js';
import type { ProcessExit, ProcessHandle, StartOptions } from './process-types.js';

// child_process and net (with the streams, dgram and sockets they pull in) are loaded at the
// first spawn, not at import: every command builds a runner, and the read-only ones
// (`--circuit-status`, `ralph-monitor --once`) never start a process (start-up budgets, docs/performance.md).
const requireBuiltin = createRequire(import.meta.url);
const childProcess = () => requireBuiltin('node:child_process') as typeof import('node:child_process');
const net = () => requireBuiltin('node:net') as typeof import('node:net');

/** After a process exits, how long its pipes may stay open before the wait moves on. */
export const PIPE_DRAIN_MS = 2000;
const DEFAULT_GRACE_MS = 2000;

export function startProcess(cmd: string, args: readonly string[], options: StartOptions = {}): ProcessHandle {
  const group = options.group ?? (options.timeoutMs !== undefined || options.signal !== undefined);
  const host = hostToolCall(cmd, options);
  if (!host) return failedHandle(notFound(cmd));
  let child: ChildProcess;
  const inherited: number[] = [];
  try {
    for (const file of options.inheritFiles ?? []) inherited.push(openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW));
    const base = options.stdio === 'inherit' ? 'inherit' : 'pipe';
    child = childProcess().spawn(host.file, [...args], {
      cwd: options.cwd,
      env: host.env,
      stdio: [base, base, base, ...inherited],
      // A new process group, so a stop reaches the process and everything it started.
      detached: group,
    });
  } catch (error) {
    // spawn throws (rather than emitting 'error') for arguments it cannot even pass on.
    return failedHandle(error as NodeJS.ErrnoException);
  } finally {
    // The child has its own copies now.
    for (const fd of inherited) closeSync(fd);
  }

  const kill = (signal: NodeJS.Signals) => signalProcess(child, group, signal);
  let stopReason: 'timeout' | 'abort' | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (reason: 'timeout' | 'abort') => {
    if (stopReason) return;
    stopReason = reason;
    kill('SIGTERM');
    killTimer = setTimeout(() => kill('SIGKILL'), options.graceMs ?? DEFAULT_GRACE_MS);
    if (options.background) killTimer.unref();
  };
  const timeoutTimer = options.timeoutMs === undefined ? undefined : setTimeout(() => stop('timeout'), Math.max(0, options.timeoutMs));
  if (options.background) timeoutTimer?.unref();
  const onAbort = () => stop('abort');
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  if (options.onStdout) child.stdout?.on('data', options.onStdout);
  else child.stdout?.resume();
  if (options.onStderr) child.stderr?.on('data', options.onStderr);
  else child.stderr?.resume();
  child.stdin?.on('error', () => {
    /* the process may exit before reading all of its input */
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  if (options.background) unrefProcess(child);

  const done = waitForExit(child, options).then((exit): ProcessExit => {
    clearTimeout(timeoutTimer);
    clearTimeout(killTimer);
    options.signal?.removeEventListener('abort', onAbort);
    // The group may still hold children that ignored SIGTERM; once the process is gone, they go too.
    if (group) kill('SIGKILL');
    return { ...exit, timedOut: stopReason === 'timeout', aborted: stopReason === 'abort' };
  });

  return {
    pid: child.pid,
    write: (chunk) => {
      child.stdin?.write(chunk);
    },
    end: (chunk) => {
      child.stdin?.end(chunk);
    },
    kill,
    done,
  };
}

/**
 * The file to run and its environment. A command given by name is a host tool (git, tmux, gh,
 * …): found, and given a PATH, without any entry the agent could have written into
 * (find-executable.ts); undefined when no such file is there. A path, or a call that runs the
 * project's own code (the agent, the gate), runs as given.
 */
function hostToolCall(
  cmd: string,
  options: Pick<StartOptions, 'cwd' | 'env' | 'projectCode'>,
): { file: string; env: NodeJS.ProcessEnv | undefined } | undefined {
  if (options.projectCode || cmd.includes('/')) return { file: cmd, env: options.env };
  const env = options.env ?? process.env;
  // No PATH at all: the system's default one (/usr/bin:/bin), which no agent writes.
  if (env.PATH === undefined) return { file: cmd, env: options.env };
  const found = hostToolOnPath(cmd, env.PATH, untrustedRoots([options.cwd]));
  return found === undefined ? undefined : { file: found.file, env: { ...env, PATH: found.path } };
}

function notFound(cmd: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`spawn ${cmd} ENOENT`), { code: 'ENOENT', errno: -2, syscall: `spawn ${cmd}`, path: cmd });
}

type RawExit = Omit<ProcessExit, 'timedOut' | 'aborted'>;

/**
 * The exit, once the pipes have closed — or drainMs after the process exited, when something
 * that left the group keeps them open: then the pipes are destroyed (an open pipe keeps Node's
 * event loop, and so ralph, alive after the work is done).
 */
function waitForExit(child: ChildProcess, options: StartOptions): Promise<RawExit> {
  return new Promise((resolve) => {
    let settled = false;
    let spawnError: NodeJS.ErrnoException | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = (code: number | null, signal: NodeJS.Signals | null, pipesHeldOpen: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(drainTimer);
      resolve({ code, signal, spawnError, pipesHeldOpen });
    };
    child.on('close', (code, signal) => finish(code, signal, false));
    child.on('exit', (code, signal) => {
      drainTimer = setTimeout(() => {
        for (const pipe of [child.stdin, child.stdout, child.stderr]) pipe?.destroy();
        finish(code, signal, true);
      }, options.drainMs ?? PIPE_DRAIN_MS);
      if (options.background) drainTimer.unref();
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError ??= error;
      // No pid: it never started, and no 'exit' will follow.
      if (child.pid === undefined) finish(null, null, false);
    });
  });
}

function signalProcess(child: ChildProcess, group: boolean, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (group) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

function unrefProcess(child: ChildProcess): void {
  child.unref();
  // The pipes are sockets, and each one also keeps the event loop alive.
  for (const pipe of [child.stdin, child.stdout, child.stderr]) {
    if (pipe instanceof net().Socket) pipe.unref();
  }
}

function failedHandle(spawnError: NodeJS.ErrnoException): ProcessHandle {
  const exit: ProcessExit = { code: null, signal: null, timedOut: false, aborted: false, spawnError, pipesHeldOpen: false };
  return { pid: undefined, write: () => undefined, end: () => undefined, kill: () => undefined, done: Promise.resolve(exit) };
}

export interface SyncExit {
  code: number | null;
  stdout: string;
}

/**
 * A short command run to its end before returning (the git gateway's look at a repository when a
 * streaming git call needs it at once): argv, no shell, stdin empty, stderr dropped.
 */
export function runProcessSync(cmd: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): SyncExit {
  const host = hostToolCall(cmd, options);
  if (!host) return { code: null, stdout: '' };
  const result = childProcess().spawnSync(host.file, [...args], {
    cwd: options.cwd,
    env: host.env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: options.timeoutMs ?? 10_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: result.error ? null : result.status, stdout: result.stdout ?? '' };
}
