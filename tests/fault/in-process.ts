// runInProcess(): the real loop (runProject) in this process against the fast fake agent, with a
// fake clock and captured logs — like tests/helpers/loop-harness.ts, but without the node fake
// claude, so a fault case costs a fraction of a second.

import { EventEmitter } from 'node:events';
import { runProject } from '../../lib/loop/run-project.js';
import type { Clock } from '../../lib/platform/clock.js';
import type { Deps } from '../../lib/platform/deps.js';
import { createMemoryLogger, type LogEntry } from '../helpers/memory-logger.js';
import { createRedactor } from '../../lib/text/redaction.js';
import { nodeProcessRunner } from '../../lib/platform/process.js';
import { fakeClock } from '../helpers/fake-clock.js';
import { captureOutput } from '../helpers/loop-harness.js';
import type { FastAgent } from './fast-agent.js';

export interface InProcessRun {
  exitCode: number;
  error?: unknown;
  logs: LogEntry[];
  stderr: string;
}

export interface InProcessOptions {
  flags?: Record<string, string | number | boolean>;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
}

export async function runInProcess(projectDir: string, agent: FastAgent, options: InProcessOptions = {}): Promise<InProcessRun> {
  const logger = createMemoryLogger();
  const stderr = captureOutput();
  const env = { ...process.env, ...agent.env, ...options.env };
  const deps: Deps = {
    clock: options.clock ?? fakeClock(),
    env,
    cwd: projectDir,
    homeDir: env.HOME ?? projectDir,
    processRunner: nodeProcessRunner,
    logger,
    stdout: captureOutput(),
    stderr,
    redact: createRedactor(env),
  };
  const signals = Object.assign(new EventEmitter(), { exit: () => undefined });
  try {
    const exitCode = await runProject({ projectDir, flags: { MAX_LOOPS: 1, ...options.flags }, deps, signals: signals as never });
    return { exitCode, logs: logger.entries, stderr: stderr.text };
  } catch (error) {
    return { exitCode: (error as { exitCode?: number }).exitCode ?? -1, error, logs: logger.entries, stderr: stderr.text };
  }
}

export const warningsOf = (run: InProcessRun): string[] => run.logs.filter((e) => e.level === 'WARN').map((e) => e.message);
