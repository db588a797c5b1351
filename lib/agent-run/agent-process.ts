// Runs one agent process: prompt on stdin, stdout kept whole in the output log (redacted) and
// handed to a line callback as it arrives, stderr in its own file, and a wall-clock timeout that
// kills the whole process tree (SIGTERM, then SIGKILL after a grace period).

import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Redactor } from '../text/redaction.js';
import type { Clock } from '../platform/clock.js';
import type { ProcessRunner } from '../platform/process.js';
import type { AgentInvocation, AgentRunKind } from '../agents/agent-adapter.js';
import { openTranscriptLog, type TranscriptLog } from './redacting-log.js';

export interface RunAgentOptions {
  invocation: AgentInvocation;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  graceMs: number;
  outputLogPath: string;
  stderrLogPath: string;
  /** Bytes kept of each of stdout and stderr in their logs (TRANSCRIPT_MAX_BYTES); the readers get all. */
  maxTranscriptBytes?: number;
  processRunner: ProcessRunner;
  clock: Clock;
  /** Called with each raw stdout chunk, in order. */
  onStdout?: (chunk: Buffer) => void;
  /** How long the pipes may stay open after the agent exited (default PIPE_DRAIN_MS). */
  pipeDrainMs?: number;
  /** Called with the agent's pid, which is also its process group id, once it is spawned. */
  onSpawn?: (pid: number) => void;
  /** Called with the agent's pid on its first output (stdout or stderr), once. */
  onFirstOutput?: (pid: number) => void;
  /** Masks secrets in the output and stderr logs (the callbacks still see the raw output). */
  redact?: Redactor;
  /** stdout is stream-json (its log then follows the stream mid-line too). */
  jsonOutput?: boolean;
  /** Told of a log file that was refused (a link in its place). */
  warn?: (message: string) => void;
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
  const interrupt = new AbortController();

  const done = (async (): Promise<RawAgentRun> => {
    await mkdir(dirname(options.outputLogPath), { recursive: true });
    const out = openTranscriptLog(options.outputLogPath, options.redact, {
      json: options.jsonOutput,
      maxBytes: options.maxTranscriptBytes,
      warn: options.warn,
    });
    // The stderr log is created on the first byte: most runs print nothing there, and an empty
    // file every loop is clutter.
    let err: TranscriptLog | undefined;
    const stderrLog = (): TranscriptLog => {
      err ??= openTranscriptLog(options.stderrLogPath, options.redact, { maxBytes: options.maxTranscriptBytes, warn: options.warn });
      return err;
    };
    let stderrTail = '';

    let outputSeen = false;
    const noteOutput = () => {
      if (outputSeen || proc.pid === undefined) return;
      outputSeen = true;
      options.onFirstOutput?.(proc.pid);
    };

    // Its own process group; the CLI (or a tool it started) may ignore SIGTERM, so a timeout or
    // an interrupt sends SIGKILL after the grace period, and what is left in the group goes too.
    const proc = processRunner.start(options.invocation.cmd, options.invocation.args, {
      cwd: options.cwd,
      env: options.env,
      input: options.invocation.stdin,
      inheritFiles: options.invocation.inheritFiles,
      // The agent's CLI, found as the run found it (on the host: the user's whole PATH).
      projectCode: true,
      group: true,
      timeoutMs: options.timeoutMs,
      signal: interrupt.signal,
      graceMs: options.graceMs,
      drainMs: options.pipeDrainMs,
      onStdout: (chunk) => {
        noteOutput();
        out.write(chunk);
        options.onStdout?.(chunk);
      },
      onStderr: (chunk) => {
        noteOutput();
        stderrLog().write(chunk);
        stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
      },
    });
    if (proc.pid !== undefined) options.onSpawn?.(proc.pid);

    const { code, signal, timedOut, aborted, spawnError, pipesHeldOpen } = await proc.done;
    await Promise.all([out.close(), ...(err ? [err.close()] : [])]);

    const kind: AgentRunKind = timedOut ? 'timed-out' : aborted ? 'interrupted' : code === 0 ? 'completed' : 'failed';
    return { kind, exitCode: code, signal, durationMs: clock.now() - startedAt, stderrTail, spawnError, pipesHeldOpen };
  })();

  return {
    done,
    interrupt() {
      interrupt.abort();
    },
  };
}
