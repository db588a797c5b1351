// Runs a task-source CLI (gh, bd) with an argv array and turns "not installed" and non-zero
// exits into TaskSourceResult failures with a message a person can act on.

import type { ProcessRunner, RunResult } from '../platform/process.js';
import { taskSourceFailure, type TaskSourceResult } from './task-source-result.js';

export interface ExternalCliOptions {
  runner: ProcessRunner;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Default 60 s: a hung network call must not hang the wizard forever. */
  timeoutMs?: number;
  /** Text for the command's stdin (a `--body-file -` body), never an argv. */
  input?: string;
}

export type ExternalCliOutcome = { ok: true; result: RunResult } | { ok: false; failure: Extract<TaskSourceResult, { ok: false }> };

export interface ToolDescription {
  cmd: string;
  /** Shown when the executable is missing, e.g. "GitHub CLI (gh)". */
  label: string;
  installHint: string;
}

export async function runExternalCli(tool: ToolDescription, args: readonly string[], options: ExternalCliOptions): Promise<ExternalCliOutcome> {
  const result = await options.runner.run(tool.cmd, args, {
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs ?? 60_000,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
  if (result.spawnError) {
    const missing = result.spawnError.code === 'ENOENT';
    return {
      ok: false,
      failure: taskSourceFailure(
        'missing-tool',
        missing ? `${tool.label} is not installed` : `${tool.label} could not be started: ${result.spawnError.message}`,
        tool.installHint,
      ),
    };
  }
  if (result.timedOut) {
    return { ok: false, failure: taskSourceFailure('failed', `${tool.label} timed out: ${tool.cmd} ${args.join(' ')}`) };
  }
  return { ok: true, result };
}

/** The first non-empty line of a CLI's stderr (or stdout), for error messages. */
export function firstOutputLine(result: RunResult): string {
  const text = `${result.stderr}\n${result.stdout}`;
  return (
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .find((line) => line !== '') ?? `exit code ${result.code}`
  );
}
