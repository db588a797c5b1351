// `.claude_session_id`: the agent session to resume. Canonical form is JSON
// `{session_id, timestamp, agent?, usage?}` (mode 600); the Bash tool's older plain-text id is
// still read. The file keeps its Bash name whichever agent's session it holds: `agent` says
// whose it is (absent: Claude), so an id of one agent never reaches another.
// Expiry is measured from the file's mtime, as the Bash tool does, so the mtime is returned.

import { statSync } from 'node:fs';
import { readRegularFile } from '../state/control-file.js';
import type { TokenUsage } from '../agents/agent-result.js';
import type { Clock } from '../platform/clock.js';
import { writeJsonAtomic } from '../state/atomic-write.js';
import { claudeSessionFileSchema } from '../state/schemas.js';
import { setAsideCorrupt, type StateReadOptions } from '../state/state-file.js';
import { formatIsoTimestamp } from '../state/timestamps.js';

const LEGACY_ID = /^[A-Za-z0-9_-]+$/;

export interface ClaudeSession {
  sessionId: string;
  /** As written in the JSON form; undefined for the legacy form. */
  timestamp?: string;
  format: 'json' | 'legacy';
  /** File modification time in ms since the epoch. */
  mtimeMs: number;
  /** Whose session it is ('claude' for files written before other agents). */
  agent: string;
  /** The session's running token total after its last call (agents that report one). */
  usage?: TokenUsage;
}

/** The stored session, or undefined when there is none or it was unreadable (set aside). */
export function readClaudeSessionId(path: string, options: StateReadOptions): ClaudeSession | undefined {
  let text: string;
  let mtimeMs: number;
  try {
    const read = readRegularFile(path);
    if (read === undefined) return undefined;
    text = read;
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
        const { session_id, timestamp, agent, usage } = parsed.data;
        return { sessionId: session_id, timestamp, format: 'json', mtimeMs, agent: agent ?? 'claude', ...(usage ? { usage } : {}) };
      }
    } catch {
      // falls through to set aside
    }
    setAsideCorrupt(path, 'no session_id in it', options);
    return undefined;
  }
  if (LEGACY_ID.test(trimmed)) return { sessionId: trimmed, format: 'legacy', mtimeMs, agent: 'claude' };
  setAsideCorrupt(path, 'not a session id', options);
  return undefined;
}

export interface SessionOwner {
  /** Omitted for Claude, so the file stays what the Bash tool and older ralphs wrote. */
  agent?: string;
  usage?: TokenUsage;
}

/** Writes the JSON form, mode 600 (it names a resumable session). */
export function writeClaudeSessionId(path: string, sessionId: string, options: { clock: Clock }, owner: SessionOwner = {}): void {
  const agent = owner.agent && owner.agent !== 'claude' ? { agent: owner.agent } : {};
  writeJsonAtomic(
    path,
    { session_id: sessionId, timestamp: formatIsoTimestamp(options.clock.now()), ...agent, ...(owner.usage ? { usage: owner.usage } : {}) },
    { mode: 0o600 },
  );
}
