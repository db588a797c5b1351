// runLoopInProject(): runs the real loop (runProject) in a temporary git project against the
// fake `claude`, with an injected clock and captured output, and hands back what a test
// asserts on: exit code, agent calls, status.json, logs.

import { EventEmitter } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LoopEvents } from '../../lib/loop/events.js';
import { runProject } from '../../lib/loop/run-project.js';
import type { Clock } from '../../lib/platform/clock.js';
import type { Deps, Output } from '../../lib/platform/deps.js';
import { createMemoryLogger } from './memory-logger.js';
import { createRedactor } from '../../lib/text/redaction.js';
import { nodeProcessRunner } from '../../lib/platform/process.js';
import { fakeClock } from './fake-clock.js';
import { withFakeClaude, type FakeClaude, type FakeScenario } from './fake-claude.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from './tmp-project.js';

export interface CapturedOutput extends Output {
  text: string;
}

export function captureOutput(isTTY = false): CapturedOutput {
  const out = {
    text: '',
    isTTY,
    columns: 100,
    write(chunk: string) {
      out.text += chunk;
    },
  };
  return out;
}

export interface LoopProject {
  project: TmpProject;
  fake: FakeClaude;
  clock: Clock;
  /** The process stand-in that receives SIGINT/SIGTERM handlers; emit() to send one. */
  signals: EventEmitter & { exit: (code?: number) => never };
  run(flags?: Record<string, string | number | boolean>, options?: { events?: LoopEvents; env?: NodeJS.ProcessEnv }): Promise<LoopRunResult>;
  status(): Record<string, unknown> | undefined;
  readJson(relative: string): unknown;
  cleanup(): void;
}

export interface LoopRunResult {
  exitCode: number;
  error?: unknown;
  stdout: CapturedOutput;
  stderr: CapturedOutput;
  logs: string[];
}

export interface LoopProjectOptions {
  files?: Record<string, string>;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
}

/** Settings that keep loop tests fast and deterministic (no retry pauses, no update check). */
export const FAST_LOOP_RC = 'CLAUDE_AUTO_UPDATE=false\nFAILURE_RETRY_SECONDS=0\nKILL_GRACE_SECONDS=1\n';

export function loopProject(scenario: FakeScenario, options: LoopProjectOptions = {}): LoopProject {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, ...options.files }), { git: true });
  const fake = withFakeClaude(scenario);
  const clock = options.clock ?? fakeClock();
  const signals = Object.assign(new EventEmitter(), {
    exit: ((code?: number) => {
      throw new Error(`process.exit(${code}) called`);
    }) as (code?: number) => never,
  });
  const readJson = (relative: string) => {
    const file = join(project.dir, relative);
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  };
  return {
    project,
    fake,
    clock,
    signals,
    readJson,
    status: () => readJson('.ralph/status.json') as Record<string, unknown> | undefined,
    async run(flags = {}, runOptions = {}) {
      const stdout = captureOutput();
      const stderr = captureOutput();
      const logger = createMemoryLogger();
      const env = { ...process.env, ...GIT_TEST_ENV, ...fake.env, ...options.env, ...runOptions.env };
      const deps: Deps = {
        clock,
        env,
        cwd: project.dir,
        homeDir: project.dir,
        processRunner: nodeProcessRunner,
        logger,
        stdout,
        stderr,
        redact: createRedactor(env),
      };
      try {
        const exitCode = await runProject({ projectDir: project.dir, flags, deps, signals: signals as never, events: runOptions.events });
        return { exitCode, stdout, stderr, logs: logger.messages() };
      } catch (error) {
        const exitCode = (error as { exitCode?: number }).exitCode ?? -1;
        return { exitCode, error, stdout, stderr, logs: logger.messages() };
      }
    },
    cleanup() {
      fake.cleanup();
      project.cleanup();
    },
  };
}
