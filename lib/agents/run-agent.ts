// Runs one agent process: prompt on stdin, stdout kept whole in the output log and handed to a
// line callback as it arrives, stderr in its own file, and a wall-clock timeout that kills the
// whole process tree (SIGTERM, then SIGKILL after a grace period).

import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../platform/clock.js';
import type { ProcessRunner } from '../platform/process.js';
import { stopProcessTree, waitForProcessTree } from '../platform/terminate.js';
import type { AgentInvocation, AgentRunKind } from './invocation.js';

export interface RunAgentOptions {
  invocation: AgentInvocation;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  graceMs: number;
  outputLogPath: string;
  stderrLogPath: string;
  processRunner: ProcessRunner;
  clock: Clock;
  /** Called with each raw stdout chunk, in order. */
  onStdout?: (chunk: Buffer) => void;
}

export interface RawAgentRun {
  kind: AgentRunKind;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  stderrTail: string;
  /** The executable could not be started. */
  spawnError?: NodeJS.ErrnoException;
}

export interface RawAgentHandle {
  done: Promise<RawAgentRun>;
  interrupt(): void;
}

const STDERR_TAIL_BYTES = 8192;

export function startAgentProcess(options: RunAgentOptions): RawAgentHandle {
  const { processRunner, clock } = options;
  const startedAt = clock.now();
  let stopReason: 'timeout' | 'interrupt' | undefined;
  let cancelKill: (() => void) | undefined;
  let termTimer: NodeJS.Timeout | undefined;
  let child: ReturnType<ProcessRunner['spawnTree']> | undefined;
  let pendingInterrupt = false;

  const stop = (reason: 'timeout' | 'interrupt') => {
    if (stopReason || !child) return;
    stopReason = reason;
    // The CLI (or a tool it started) may ignore SIGTERM: SIGKILL follows after the grace period.
    cancelKill = stopProcessTree(child, processRunner, options.graceMs);
  };

  const done = (async (): Promise<RawAgentRun> => {
    await mkdir(dirname(options.outputLogPath), { recursive: true });
    // The raw transcript may hold whatever the agent read or printed: owner-only, like session files.
    const out = createWriteStream(options.outputLogPath, { mode: 0o600 });
    // A failed log write (disk full) must not crash the run with an unhandled 'error' event:
    // the output is still read from the pipe, and the next state write reports the problem.
    out.on('error', () => undefined);
    // The stderr log is created on the first byte: most runs print nothing there, and an empty
    // file every loop is clutter.
    let err: WriteStream | undefined;
    const stderrLog = (): WriteStream => {
      err ??= createWriteStream(options.stderrLogPath, { mode: 0o600 }).on('error', () => undefined);
      return err;
    };
    let stderrTail = '';
    let spawnError: NodeJS.ErrnoException | undefined;

    child = processRunner.spawnTree(options.invocation.cmd, options.invocation.args, {
      cwd: options.cwd,
      env: options.env,
    });
    const proc = child;
    proc.on('error', (error: NodeJS.ErrnoException) => {
      spawnError = error;
    });
    proc.stdout?.on('data', (chunk: Buffer) => {
      out.write(chunk);
      options.onStdout?.(chunk);
    });
    proc.stderr?.on('data', (chunk: Buffer) => {
      stderrLog().write(chunk);
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    proc.stdin?.on('error', () => {
      /* the agent may exit before reading the whole prompt */
    });
    proc.stdin?.end(options.invocation.stdin);
    if (pendingInterrupt) stop('interrupt');
    else termTimer = setTimeout(() => stop('timeout'), options.timeoutMs);

    // The group may still hold children that ignored SIGTERM; once the agent is gone, they go too.
    const { code, signal } = await waitForProcessTree(proc, processRunner);
    clearTimeout(termTimer);
    cancelKill?.();
    await Promise.all([closeStream(out), ...(err ? [closeStream(err)] : [])]);

    const kind: AgentRunKind =
      stopReason === 'timeout' ? 'timed-out' : stopReason === 'interrupt' ? 'interrupted' : code === 0 ? 'completed' : 'failed';
    return { kind, exitCode: code, signal, durationMs: clock.now() - startedAt, stderrTail, spawnError };
  })();

  return {
    done,
    interrupt() {
      if (child) stop('interrupt');
      else pendingInterrupt = true;
    },
  };
}

function closeStream(stream: WriteStream): Promise<void> {
  return new Promise((resolve) => stream.end(resolve));
}
