// Session continuity (reference §11.8): which Claude session the next loop resumes, when a
// session is too old, and resets with a recorded reason in .ralph_session and its history.
// The log lines keep the Bash tool's wording (`Saved Claude session: …`, `Session reset: …`):
// users grep their logs for them. Sessions are per agent: the stored id names its agent, and
// an id of another agent is no session for this one.

import { existsSync, rmSync } from 'node:fs';
import type { AgentAdapter } from '../agents/agent-adapter.js';
import type { TokenUsage } from '../agents/agent-output.js';
import type { Logger } from '../platform/deps.js';
import { writeJsonAtomic } from '../state/atomic-write.js';
import { readClaudeSessionId, writeClaudeSessionId } from '../state/claude-session-id.js';
import { appendBoundedJsonArray } from '../state/history.js';
import type { RalphPaths } from '../state/paths.js';
import {
  defaultExitSignalsFile,
  defaultRalphSessionFile,
  RALPH_SESSION_HISTORY_MAX,
  ralphSessionFileSchema,
  ralphSessionHistoryEntrySchema,
} from '../state/schemas.js';
import { readStateFile, type StateReadOptions } from '../state/state-file.js';
import { formatIsoTimestamp } from '../state/timestamps.js';

export type SessionResetReason =
  | 'manual_interrupt'
  | 'integrity_failure'
  | 'circuit_breaker_open'
  | 'permission_denied'
  | 'project_complete'
  | 'circuit_breaker_trip'
  | 'api_limit_exit'
  | 'tool_use_concurrency_error'
  | 'api_error_is_error_true'
  | 'manual_circuit_reset'
  | 'manual_reset_flag'
  | 'session_not_found'
  | 'prompt_too_long'
  | 'completion_conflict'
  | 'budget_exhausted';

export interface ResumableSession {
  sessionId: string;
  ageHours: number;
  /** The session's running token total after its last call (agents with cumulative usage). */
  usage?: TokenUsage;
}

/** How log lines name an agent's sessions: `Claude session` (the Bash wording), `Codex session`. */
export function sessionLabel(agent: AgentAdapter): string {
  return agent.name === 'claude' ? 'Claude' : agent.label;
}

/**
 * The session of `agent` to resume, or undefined (none, another agent's, or older than the
 * expiry: then it is dropped).
 */
export function loadResumableSession(
  paths: RalphPaths,
  agent: AgentAdapter,
  expiryHours: number,
  options: StateReadOptions,
): ResumableSession | undefined {
  const stored = readClaudeSessionId(paths.claudeSessionId, options);
  if (!stored) return undefined;
  if (stored.agent !== agent.name) {
    // Kept as it is until this agent saves its own: an id of one CLI means nothing to another.
    options.logger.info(`The saved session belongs to ${describeRejectedId(stored.agent)}, not ${agent.name}: it is not resumed`);
    return undefined;
  }
  if (!agent.isValidSessionId(stored.sessionId)) {
    // The agent can write this file: whatever is not a session id never reaches --resume.
    options.logger.warn(`Discarded .ralph/.claude_session_id: ${describeRejectedId(stored.sessionId)} is not a ${sessionLabel(agent)} session id`);
    rmSync(paths.claudeSessionId, { force: true });
    return undefined;
  }
  // The time ralph wrote into the file when it has one (the file is rewritten after every
  // loop, so it matches the Bash tool's mtime rule), else the file's mtime.
  const written = stored.timestamp ? Date.parse(stored.timestamp) : Number.NaN;
  const savedAt = Number.isNaN(written) ? stored.mtimeMs : written;
  const ageHours = Math.max(0, Math.floor((options.clock.now() - savedAt) / 3_600_000));
  if (ageHours >= expiryHours) {
    options.logger.info(`Session expired (${ageHours}h old, max ${expiryHours}h), starting new session`);
    rmSync(paths.claudeSessionId, { force: true });
    return undefined;
  }
  return { sessionId: stored.sessionId, ageHours, ...(stored.usage ? { usage: stored.usage } : {}) };
}

/**
 * The session id the agent reported (stream-json or json result), when it has the shape of one;
 * anything else is dropped with a warning, so it is neither saved for --resume nor recorded.
 */
export function acceptReportedSessionId(id: string | null, agent: AgentAdapter, logger: Logger): string | null {
  if (id === null || agent.isValidSessionId(id)) return id;
  logger.warn(`Discarded the session id the agent reported: ${describeRejectedId(id)} is not a ${sessionLabel(agent)} session id`);
  return null;
}

/** Quoted and cut short: the text is the agent's, so it is shown escaped and bounded. */
function describeRejectedId(id: string): string {
  return JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id);
}

/** Saves `agent`'s session, with its running token total when the agent reports one. */
export function saveAgentSession(paths: RalphPaths, agent: AgentAdapter, sessionId: string, options: StateReadOptions, usage?: TokenUsage): void {
  writeClaudeSessionId(paths.claudeSessionId, sessionId, options, { agent: agent.name, usage });
  options.logger.info(`Saved ${sessionLabel(agent)} session: ${sessionId.slice(0, 20)}...`);
}

/** Creates .ralph_session when missing or unreadable (Bash `init_session_tracking`). */
export function initRalphSession(paths: RalphPaths, options: StateReadOptions): void {
  const result = readStateFile(paths.ralphSession, ralphSessionFileSchema, defaultRalphSessionFile(), options);
  if (result.status === 'ok' && result.value.session_id) return;
  const now = formatIsoTimestamp(options.clock.now());
  const sessionId = `ralph-${Math.floor(options.clock.now() / 1000)}-${Math.floor(Math.random() * 32768)}`;
  if (result.status === 'corrupt') options.logger.warn('Corrupted session file detected, recreating...');
  writeJsonAtomic(paths.ralphSession, {
    session_id: sessionId,
    created_at: now,
    last_used: now,
    reset_at: result.status === 'corrupt' ? now : '',
    reset_reason: result.status === 'corrupt' ? 'corrupted_file_recovery' : '',
  });
  if (result.status !== 'corrupt') options.logger.info(`Initialized session tracking (session: ${sessionId})`);
}

export function touchRalphSession(paths: RalphPaths, options: StateReadOptions): void {
  const result = readStateFile(paths.ralphSession, ralphSessionFileSchema, defaultRalphSessionFile(), options);
  if (!result.value.session_id) return;
  writeJsonAtomic(paths.ralphSession, { ...result.value, last_used: formatIsoTimestamp(options.clock.now()) });
}

/**
 * Bash `reset_session`: forget the agent session, the last analysis and the exit signals, and
 * record why in .ralph_session and its bounded history.
 */
export function resetSession(
  paths: RalphPaths,
  reason: SessionResetReason,
  loopNumber: number,
  options: StateReadOptions,
  /** The run ends here: keep its last analysis for the views (the next run clears it). */
  end?: { keepAnalysis: boolean },
): void {
  const now = formatIsoTimestamp(options.clock.now());
  writeJsonAtomic(paths.ralphSession, {
    session_id: '',
    created_at: '',
    last_used: '',
    reset_at: now,
    reset_reason: reason,
  });
  rmSync(paths.claudeSessionId, { force: true });
  if (!end?.keepAnalysis) rmSync(paths.responseAnalysis, { force: true });
  if (existsSync(paths.exitSignals)) writeJsonAtomic(paths.exitSignals, defaultExitSignalsFile());
  appendBoundedJsonArray(
    paths.ralphSessionHistory,
    ralphSessionHistoryEntrySchema,
    { timestamp: now, from_state: 'active', to_state: 'reset', reason, loop_number: loopNumber },
    RALPH_SESSION_HISTORY_MAX,
    options,
  );
  options.logger.info(`Session reset: ${reason}`);
}
