// Runs one agent process: prompt on stdin, stdout kept whole in the output log (redacted) and
// handed to a line callback as it arrives, stderr in its own file, and a wall-clock timeout that
// kills the whole process tree (SIGTERM, then SIGKILL after a grace period).

import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Redactor } from '../core/redaction.js';
import type { Clock } from '../platform/clock.js';
import type { ProcessRunner } from '../platform/process.js';
import { stopProcessTree, waitForProcessTree } from '../platform/terminate.js';
import type { AgentInvocation, AgentRunKind } from './agent-adapter.js';
import { openTranscriptLog, type TranscriptLog } from './redacting-log.js';

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
  /** How long the pipes may stay open after the agent exited (default PIPE_DRAIN_MS). */
  pipeDrainMs?: number;
  /** Called with the agent's pid, which is also its process group id, once it is spawned. */
  onSpawn?: (pid: number) => void;
  /** Masks secrets in the output and stderr logs (the callbacks still see the raw output). */
  redact?: Redactor;
  /** stdout is stream-json (its log then follows the stream mid-line too). */
  jsonOutput?: boolean;
}

export interface RawAgentRun {
  kind: AgentRunKind;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  stderrTail: string;
  /** The executable could not be started. */
  spawnError?: NodeJS.ErrnoException;
  /** A process that escaped the agent's group held its output open after it exited. */
  pipesHeldOpen: boolean;
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
    const out = openTranscriptLog(options.outputLogPath, options.redact, { json: options.jsonOutput });
    // The stderr log is created on the first byte: most runs print nothing there, and an empty
    // file every loop is clutter.
    let err: TranscriptLog | undefined;
    const stderrLog = (): TranscriptLog => {
      err ??= openTranscriptLog(options.stderrLogPath, options.redact);
      return err;
    };
    let stderrTail = '';
    let spawnError: NodeJS.ErrnoException | undefined;

    child = processRunner.spawnTree(options.invocation.cmd, options.invocation.args, {
      cwd: options.cwd,
      env: options.env,
    });
    const proc = child;
    if (proc.pid !== undefined) options.onSpawn?.(proc.pid);
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
    const { code, signal, pipesHeldOpen } = await waitForProcessTree(proc, processRunner, options.pipeDrainMs);
    clearTimeout(termTimer);
    cancelKill?.();
    await Promise.all([out.close(), ...(err ? [err.close()] : [])]);

    const kind: AgentRunKind =
      stopReason === 'timeout' ? 'timed-out' : stopReason === 'interrupt' ? 'interrupted' : code === 0 ? 'completed' : 'failed';
    return { kind, exitCode: code, signal, durationMs: clock.now() - startedAt, stderrTail, spawnError, pipesHeldOpen };
  })();

  return {
    done,
    interrupt() {
      if (child) stop('interrupt');
      else pendingInterrupt = true;
    },
  };
}
