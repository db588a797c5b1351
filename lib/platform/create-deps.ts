// Builds the real Deps once, in the CLI layer: the system clock, real processes, the process
// environment, the secret redactor (built once, from that environment), and a logger writing
// to stderr and the project's ralph.log.

import { homedir } from 'node:os';
import { createRedactor } from '../text/redaction.js';
import { systemClock, type Clock } from './clock.js';
import type { Deps, Output } from './deps.js';
import { createLogger } from './logger.js';
import { nodeProcessRunner } from './process.js';

export interface CreateDepsOptions {
  cwd: string;
  logFile?: string;
  verbose?: boolean;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
}

export function processOutput(stream: NodeJS.WriteStream): Output {
  return {
    write: (text) => {
      stream.write(text);
    },
    get isTTY() {
      return Boolean(stream.isTTY);
    },
    get columns() {
      return stream.columns;
    },
  };
}

export function createDeps(options: CreateDepsOptions): Deps {
  const clock = options.clock ?? systemClock;
  const env = options.env ?? process.env;
  const stderr = processOutput(process.stderr);
  const redact = createRedactor(env);
  return {
    clock,
    env,
    cwd: options.cwd,
    homeDir: homedir(),
    processRunner: nodeProcessRunner,
    logger: createLogger({ logFile: options.logFile, stderr, env, redact, clock, verbose: options.verbose }),
    stdout: processOutput(process.stdout),
    stderr,
    redact,
    // A getter: reading process.stdin builds its stream (a TTY one loads net), which only a
    // prompt needs; the read-only commands never ask (start-up budgets, docs/performance.md).
    get stdin() {
      return process.stdin;
    },
  };
}
