// `.claude_session_id`: the agent session to resume. Canonical form is JSON
// `{session_id, timestamp}` (mode 600); the Bash tool's older plain-text id is still read.
// Expiry is measured from the file's mtime, as the Bash tool does, so the mtime is returned.

import { readFileSync, statSync } from 'node:fs';
import type { Clock } from '../platform/clock.js';
import { writeJsonAtomic } from './atomic-write.js';
import { claudeSessionFileSchema } from './schemas.js';
import { setAsideCorrupt, type StateReadOptions } from './state-file.js';
import { formatIsoTimestamp } from './timestamps.js';

const LEGACY_ID = /^[A-Za-z0-9_-]+$/;

export interface ClaudeSession {
  sessionId: string;
  /** As written in the JSON form; undefined for the legacy form. */
  timestamp?: string;
  format: 'json' | 'legacy';
  /** File modification time in ms since the epoch. */
  mtimeMs: number;
}

/** The stored session, or undefined when there is none or it was unreadable (set aside). */
export function readClaudeSessionId(path: string, options: StateReadOptions): ClaudeSession | undefined {
  let text: string;
  let mtimeMs: number;
  try {
    text = readFileSync(path, 'utf8');
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
  const trimmed = text.trim();
  if (trimmed === '') return undefined;

  if (trimmed.startsWith('{')) {
    try {
      const parsed = claudeSessionFileSchema.safeParse(JSON.parse(trimmed));
      if (parsed.success) {
        return { sessionId: parsed.data.session_id, timestamp: parsed.data.timestamp, format: 'json', mtimeMs };
      }
    } catch {
      // falls through to set aside
    }
    setAsideCorrupt(path, 'no session_id in it', options);
    return undefined;
  }
  if (LEGACY_ID.test(trimmed)) return { sessionId: trimmed, format: 'legacy', mtimeMs };
  setAsideCorrupt(path, 'not a session id', options);
  return undefined;
}

/** Writes the JSON form, mode 600 (it names a resumable session). */
export function writeClaudeSessionId(path: string, sessionId: string, options: { clock: Clock }): void {
  writeJsonAtomic(path, { session_id: sessionId, timestamp: formatIsoTimestamp(options.clock.now()) }, { mode: 0o600 });
}
