// Deps: every side effect the rest of the code may use, built once in the CLI layer
// (createDeps in lib/platform/create-deps.ts) and passed down. Tests build their own with
// a fake clock, a captured logger and a real process runner pointed at fake executables.

import type { Redactor } from '../text/redaction.js';
import type { Clock } from './clock.js';
import type { ProcessRunner } from './process.js';

export type LogLevel = 'INFO' | 'WARN' | 'ERROR' | 'SUCCESS' | 'LOOP' | 'DEBUG';

export interface Logger {
  /** One line in the Bash tool's format, to stderr (coloured on a TTY) and .ralph/logs/ralph.log. */
  log(level: LogLevel, message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  success(message: string): void;
  debug(message: string): void;
}

export interface Output {
  write(text: string): void;
  readonly isTTY: boolean;
  readonly columns?: number;
}

export interface Deps {
  clock: Clock;
  env: NodeJS.ProcessEnv;
  cwd: string;
  homeDir: string;
  processRunner: ProcessRunner;
  logger: Logger;
  stdout: Output;
  stderr: Output;
  /** Masks secrets (env values named like secrets, token shapes) in anything written or shown. */
  redact: Redactor;
  /** The user's stdin, to answer a prompt; absent: nobody to ask (unattended, tests). */
  stdin?: NodeJS.ReadStream;
}
