// createMemoryLogger(): a Logger that keeps every call in memory, so a test can assert what the
// code under test logged (level and message) without a file or stderr.

import type { Logger, LogLevel } from '../../lib/platform/deps.js';

export interface LogEntry {
  level: LogLevel;
  message: string;
}

export interface MemoryLogger extends Logger {
  entries: LogEntry[];
  /** Messages logged at `level` (all levels when omitted), in order. */
  messages(level?: LogLevel): string[];
}

export function createMemoryLogger(): MemoryLogger {
  const entries: LogEntry[] = [];
  const log = (level: LogLevel, message: string) => {
    entries.push({ level, message });
  };
  return {
    log,
    info: (message) => log('INFO', message),
    warn: (message) => log('WARN', message),
    error: (message) => log('ERROR', message),
    success: (message) => log('SUCCESS', message),
    debug: (message) => log('DEBUG', message),
    entries,
    messages: (level) => entries.filter((e) => level === undefined || e.level === level).map((e) => e.message),
  };
}
