// Runs one gate command as a process tree: its own process group, stdin closed, stdout and
// stderr kept as bounded tails, and a time limit (or an abort) that ends the whole tree —
// SIGTERM, then SIGKILL after a grace period — so a hung test server cannot outlive the gate.

import type { Clock } from '../platform/clock.js';
import type { ProcessRunner } from '../platform/process.js';
import { stopProcessTree, waitForProcessTree } from '../platform/terminate.js';

export interface RunCommandOptions {
  argv: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** SIGTERM → SIGKILL grace (default 2 s). */
  graceMs?: number;
  processRunner: ProcessRunner;
  clock: Clock;
  /** Ends the command early (Ctrl-C). */
  signal?: AbortSignal;
  /** Bytes of stdout kept for parsers that read it (default 8 MiB). */
  maxStdoutBytes?: number;
  /** Bytes of interleaved stdout+stderr kept (default 1 MiB). */
  maxOutputBytes?: number;
  /** How long the pipes may stay open after the command exited (default PIPE_DRAIN_MS). */
  pipeDrainMs?: number;
}

export interface RunCommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  interrupted: boolean;
  durationMs: number;
  stdout: string;
  /** stdout and stderr as they arrived. */
  output: string;
  spawnError?: NodeJS.ErrnoException;
  /** A process that escaped the command's group held its output open after it exited. */
  pipesHeldOpen?: boolean;
}

export async function runCommand(options: RunCommandOptions): Promise<RunCommandResult> {
  const { processRunner, clock } = options;
  const startedAt = clock.now();
  const stdout = boundedTail(options.maxStdoutBytes ?? 8 * 1024 * 1024);
  const output = boundedTail(options.maxOutputBytes ?? 1024 * 1024);
  let stopReason: 'timeout' | 'interrupt' | undefined;
  let spawnError: NodeJS.ErrnoException | undefined;
  let cancelKill: (() => void) | undefined;

  const [cmd, ...args] = options.argv;
  let child: ReturnType<ProcessRunner['spawnTree']>;
  try {
    child = processRunner.spawnTree(cmd ?? '', args, { cwd: options.cwd, env: options.env });
  } catch (error) {
    // spawn throws (rather than emitting 'error') for arguments it cannot even pass on.
    const spawnError = error as NodeJS.ErrnoException;
    return { exitCode: null, signal: null, timedOut: false, interrupted: false, durationMs: 0, stdout: '', output: '', spawnError, pipesHeldOpen: false };
  }
  const stop = (reason: 'timeout' | 'interrupt') => {
    if (stopReason) return;
    stopReason = reason;
    cancelKill = stopProcessTree(child, processRunner, options.graceMs ?? 2000);
  };
  child.on('error', (error: NodeJS.ErrnoException) => {
    spawnError = error;
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout.push(chunk);
    output.push(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
  child.stdin?.on('error', () => {
    /* the command may exit before its stdin is closed */
  });
  child.stdin?.end();
  const timeout = setTimeout(() => stop('timeout'), Math.max(0, options.timeoutMs));
  const onAbort = () => stop('interrupt');
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  // Whatever the command left running in its group goes with it (a hung test server, …).
  const { code, signal, pipesHeldOpen } = await waitForProcessTree(child, processRunner, options.pipeDrainMs);
  clearTimeout(timeout);
  cancelKill?.();
  options.signal?.removeEventListener('abort', onAbort);

  return {
    exitCode: code,
    signal,
    timedOut: stopReason === 'timeout',
    interrupted: stopReason === 'interrupt',
    durationMs: clock.now() - startedAt,
    stdout: stdout.text(),
    output: output.text(),
    spawnError,
    pipesHeldOpen,
  };
}

/** Keeps the last maxBytes of a byte stream. */
function boundedTail(maxBytes: number): { push(chunk: Buffer): void; text(): string } {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    push(chunk) {
      chunks.push(chunk);
      size += chunk.length;
      while (size > maxBytes && chunks.length > 1) size -= chunks.shift()!.length;
    },
    text() {
      const all = Buffer.concat(chunks);
      const start = Math.max(0, all.length - maxBytes);
      // Start on a character boundary (skip UTF-8 continuation bytes).
      let from = start;
      while (from < all.length && (all[from]! & 0xc0) === 0x80) from++;
      return all.subarray(from).toString('utf8');
    },
  };
}
