// The loop's logger, in the Bash tool's `log_status` format: `[YYYY-MM-DD HH:MM:SS] [LEVEL] msg`
// (local time) to stderr, coloured on a TTY, and uncoloured to .ralph/logs/ralph.log, which is
// rotated at 10 MiB keeping 4 old files, and never written through a link (see
// state/no-follow.ts). Secrets are masked on every line before it goes anywhere,
// and terminal control sequences in it (a message may quote the agent) are removed before the
// logger adds its own colour.

import { existsSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from './clock.js';
import { createRedactor, type Redactor } from '../text/redaction.js';
import { stripTerminalControls } from '../text/terminal-text.js';
import type { Logger, LogLevel, Output } from './deps.js';
import { isRefusedWrite } from '../state/no-follow.js';
import { KeptAppendFile } from '../state/kept-append.js';

export interface LoggerOptions {
  /** ralph.log; appended only when its directory exists (the Bash tool never creates it to log). */
  logFile?: string;
  stderr: Pick<Output, 'write' | 'isTTY'>;
  env: NodeJS.ProcessEnv;
  /** The run's redactor (default: one built from `env`). */
  redact?: Redactor;
  clock: Clock;
  /** Drop lines below this level (DEBUG < INFO = SUCCESS = LOOP < WARN < ERROR). Default INFO. */
  minLevel?: LogLevel;
  /** Show DEBUG lines (on stderr and in the file). */
  verbose?: boolean;
  /** Rotation size; default 10 MiB. */
  maxLogBytes?: number;
}

const RANK: Record<LogLevel, number> = { DEBUG: 0, INFO: 1, SUCCESS: 1, LOOP: 1, WARN: 2, ERROR: 3 };

// The Bash tool's colour codes, byte for byte (`0;34` resets then colours, and `0` resets all):
// Node's util.styleText writes other sequences (`34` … `39`), which the dashboard uses.
const COLOUR: Record<LogLevel, string> = {
  INFO: '\x1b[0;34m',
  WARN: '\x1b[1;33m',
  ERROR: '\x1b[0;31m',
  SUCCESS: '\x1b[0;32m',
  LOOP: '\x1b[0;35m',
  DEBUG: '',
};
const RESET = '\x1b[0m';

/** A logger that drops everything: for read-only viewers (the monitor), which say nothing of files they only look at. */
export const silentLogger: Logger = { log() {}, info() {}, warn() {}, error() {}, success() {}, debug() {} };

export const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
export const LOG_ROTATE_KEEP = 4;

export function createLogger(options: LoggerOptions): Logger {
  const redact = options.redact ?? createRedactor(options.env);
  const colour = options.stderr.isTTY && !options.env.NO_COLOR;
  const minRank = RANK[options.minLevel ?? 'INFO'];
  const maxBytes = options.maxLogBytes ?? LOG_ROTATE_BYTES;

  function log(level: LogLevel, message: string): void {
    if (level === 'DEBUG' ? !options.verbose : RANK[level] < minRank) return;
    // A message often carries someone else's text (an issue title, the agent's words, a CLI's
    // error): every line of it gets the time and level, so a newline cannot forge a record.
    const prefix = `[${formatLogTime(options.clock.now())}] [${level}] `;
    const line = redact(stripTerminalControls(message))
      .split('\n')
      .map((text) => prefix + text)
      .join('\n');
    const tint = colour ? COLOUR[level] : '';
    options.stderr.write(tint ? `${tint}${line}${RESET}\n` : `${line}\n`);
    if (options.logFile && !refusedLogFile) appendToLogFile(options.logFile, `${line}\n`, maxBytes, warnRefused);
  }

  // A log file the agent replaced by a link is not written again this run; stderr says so once.
  let refusedLogFile = false;
  function warnRefused(error: Error): void {
    refusedLogFile = true;
    const warning = `[${formatLogTime(options.clock.now())}] [WARN] ${error.message}; log lines go to stderr only`;
    options.stderr.write(colour ? `${COLOUR.WARN}${warning}${RESET}\n` : `${warning}\n`);
  }

  return {
    log,
    info: (message) => log('INFO', message),
    warn: (message) => log('WARN', message),
    error: (message) => log('ERROR', message),
    success: (message) => log('SUCCESS', message),
    debug: (message) => log('DEBUG', message),
  };
}

/** No log folder: the line goes to stderr only. */
class MissingLogFolder extends Error {}

/** Log files held open, the most recently used last: a run has one, --parallel one per unit. */
const LOG_FILES_KEPT = 8;
const logFiles = new Map<string, KeptAppendFile>();

function keptLogFile(path: string): KeptAppendFile {
  const kept = logFiles.get(path) ?? new KeptAppendFile(path);
  logFiles.delete(path);
  logFiles.set(path, kept);
  for (const [oldest, file] of logFiles) {
    if (logFiles.size <= LOG_FILES_KEPT) break;
    file.close();
    logFiles.delete(oldest);
  }
  return kept;
}

function appendToLogFile(path: string, text: string, maxBytes: number, onRefused: (error: Error) => void): void {
  try {
    keptLogFile(path).append(text, (size) => {
      // A missing log is made only where its folder is (the Bash tool never creates it to log).
      if (size === undefined && !existsSync(dirname(path))) throw new MissingLogFolder();
      return size !== undefined && size >= maxBytes && rotateLogIfNeeded(path, maxBytes);
    });
  } catch (error) {
    // A log line must never stop the loop (disk full, permissions); stderr still has it.
    if (isRefusedWrite(error)) onRefused(error);
  }
}

/**
 * When `path` has reached `maxBytes`: drops `.keep`, shifts `.n` to `.n+1`, and moves the log
 * to `.1`. Returns whether it rotated.
 */
export function rotateLogIfNeeded(path: string, maxBytes = LOG_ROTATE_BYTES, keep = LOG_ROTATE_KEEP): boolean {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return false;
  }
  if (size < maxBytes) return false;
  removeQuietly(`${path}.${keep}`);
  for (let n = keep - 1; n >= 1; n--) {
    if (existsSync(`${path}.${n}`)) renameSync(`${path}.${n}`, `${path}.${n + 1}`);
  }
  renameSync(path, `${path}.1`);
  return true;
}

function formatLogTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ` + `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // not there
  }
}
