// `ralph --status`: prints .ralph/status.json (ours or the Bash tool's) as the Bash tool does,
// or with --json the whole machine-readable state in one object.

import { existsSync, readFileSync } from 'node:fs';
import { ralphPaths } from '../state/paths.js';

export interface ShowStatusOptions {
  projectDir: string;
  json: boolean;
  write: (text: string) => void;
}

export const NO_STATUS_MESSAGE = 'No status file found. Ralph may not be running.';

export function showStatus(options: ShowStatusOptions): number {
  const paths = ralphPaths(options.projectDir);
  if (options.json) {
    options.write(`${JSON.stringify(collectStatus(options.projectDir), null, 2)}\n`);
    return 0;
  }
  if (!existsSync(paths.status)) {
    options.write(`${NO_STATUS_MESSAGE}\n`);
    return 0;
  }
  const raw = readFileSync(paths.status, 'utf8');
  options.write('Current Status:\n');
  const parsed = tryParse(raw);
  // Like the Bash tool: pretty JSON when it parses, the raw text otherwise.
  options.write(parsed === undefined ? raw : `${JSON.stringify(parsed, null, 2)}\n`);
  return 0;
}

/** Everything a script may want to know, each part null when its file is absent or unreadable. */
export function collectStatus(projectDir: string): Record<string, unknown> {
  const paths = ralphPaths(projectDir);
  const read = (path: string) => (existsSync(path) ? tryParse(readFileSync(path, 'utf8')) ?? null : null);
  const status = read(paths.status) as Record<string, unknown> | null;
  return {
    status: status?.status ?? null,
    exit_reason: status?.exit_reason ?? null,
    loop_count: status?.loop_count ?? null,
    status_file: status,
    progress: read(paths.progress),
    circuit_breaker: read(paths.circuitBreakerState),
    exit_signals: read(paths.exitSignals),
    last_analysis: read(paths.responseAnalysis),
    usage_limit_wait: read(paths.usageLimitWait),
    run: read(paths.runState),
    session: read(paths.ralphSession),
  };
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
