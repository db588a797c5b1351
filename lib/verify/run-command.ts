// Runs one gate command as a process tree: its own process group, stdin closed, stdout and
// stderr kept as bounded tails, and a time limit (or an abort) that ends the whole tree —
// SIGTERM, then SIGKILL after a grace period — so a hung test server cannot outlive the gate.

import type { Clock } from '../platform/clock.js';
import type { ProcessRunner } from '../platform/process.js';

export interface RunCommandOptions {
  argv: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Files given to the command as file descriptors 3, … (a sandbox's seccomp filter). */
  inheritFiles?: readonly string[];
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

  const [cmd, ...args] = options.argv;
  // Whatever the command leaves running in its group goes with it (a hung test server, …).
  const exit = await processRunner.start(cmd ?? '', args, {
    cwd: options.cwd,
    env: options.env,
    // The project's test command: found on the whole PATH (its node_modules/.bin included).
    projectCode: true,
    input: '',
    inheritFiles: options.inheritFiles,
    group: true,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    graceMs: options.graceMs ?? 2000,
    drainMs: options.pipeDrainMs,
    onStdout: (chunk) => {
      stdout.push(chunk);
      output.push(chunk);
    },
    onStderr: (chunk) => output.push(chunk),
  }).done;

  return {
    exitCode: exit.code,
    signal: exit.signal,
    timedOut: exit.timedOut,
    interrupted: exit.aborted,
    durationMs: clock.now() - startedAt,
    stdout: stdout.text(),
    output: output.text(),
    spawnError: exit.spawnError,
    pipesHeldOpen: exit.pipesHeldOpen,
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
