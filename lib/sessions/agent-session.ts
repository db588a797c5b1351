// Session continuity: which Claude session the next loop resumes, when a
// session is too old, and resets with a recorded reason in .ralph_session and its history.
// The log lines keep the Bash tool's wording (`Saved Claude session: …`, `Session reset: …`):
// users grep their logs for them. Sessions are per agent: the stored id names its agent, and
// an id of another agent is no session for this one. Both session files and the reset history
// are held in memory for the run (RunSessions) and written through.

import { existsSync, rmSync } from 'node:fs';
import type { AgentAdapter } from '../agents/agent-adapter.js';
import type { TokenUsage } from '../agents/claude-output.js';
import type { Logger } from '../platform/deps.js';
import { writeJsonAtomic } from '../state/atomic-write.js';
import { readClaudeSessionId, writeClaudeSessionId } from './claude-session-id.js';
import type { HeldHistory } from '../state/history.js';
import type { RalphPaths } from '../state/paths.js';
import { defaultExitSignalsFile, type RalphSessionFile, type RalphSessionHistoryEntry } from '../state/schemas.js';
import type { StateReadOptions } from '../state/state-file.js';
import { appendRalphSessionHistory, holdRalphSessionHistory, loadRalphSession, saveRalphSession } from '../state/store.js';
import { formatIsoTimestamp } from '../state/timestamps.js';
import { clearExitEvidence, type ExitEvidence } from '../exit-gate/exit-evidence.js';
import { HeldState } from '../state/held-state.js';

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

/** The agent session the run holds (.claude_session_id), as ralph last saved it. */
export interface HeldAgentSession {
  agent: string;
  sessionId: string;
  /** When it was saved: the time ralph wrote into the file, else the file's mtime (the Bash tool's rule). */
  savedAtMs: number;
  usage?: TokenUsage;
}

/**
 * The run's sessions, read once when it starts and written through. The agent can write
 * .ralph/, so no file is read back mid-run: a session id the agent forges into
 * .claude_session_id never reaches --resume.
 */
export interface RunSessions {
  agent: HeldState<HeldAgentSession | undefined>;
  ralph: HeldState<RalphSessionFile>;
  /** .ralph_session_history: the resets, the newest 50. */
  readonly history: HeldHistory<RalphSessionHistoryEntry>;
  /** .ralph_session was unreadable at startup (set aside; initRalphSession records the recovery). */
  ralphCorrupt: boolean;
}

/** Reads .claude_session_id, .ralph_session and its history once, for the run to hold. */
export function loadRunSessions(paths: RalphPaths, options: StateReadOptions): RunSessions {
  const stored = readClaudeSessionId(paths.claudeSessionId, options);
  const written = stored?.timestamp ? Date.parse(stored.timestamp) : Number.NaN;
  const agentSession = stored && {
    agent: stored.agent,
    sessionId: stored.sessionId,
    savedAtMs: Number.isNaN(written) ? stored.mtimeMs : written,
    ...(stored.usage ? { usage: stored.usage } : {}),
  };
  const ralph = loadRalphSession(paths, options);
  return {
    agent: new HeldState<HeldAgentSession | undefined>(agentSession, (next) => {
      if (!next) rmSync(paths.claudeSessionId, { force: true });
      else writeClaudeSessionId(paths.claudeSessionId, next.sessionId, options, { agent: next.agent, usage: next.usage });
    }),
    ralph: new HeldState(ralph.value, (next) => saveRalphSession(paths, next)),
    history: holdRalphSessionHistory(paths, options),
    ralphCorrupt: ralph.status === 'corrupt',
  };
}

/**
 * The session of `agent` to resume, or undefined (none, another agent's, or older than the
 * expiry: then it is dropped).
 */
export function resumableSession(sessions: RunSessions, agent: AgentAdapter, expiryHours: number, options: StateReadOptions): ResumableSession | undefined {
  const stored = sessions.agent.value;
  if (!stored) return undefined;
  if (stored.agent !== agent.name) {
    // Kept as it is until this agent saves its own: an id of one CLI means nothing to another.
    options.logger.info(`The saved session belongs to ${describeRejectedId(stored.agent)}, not ${agent.name}: it is not resumed`);
    return undefined;
  }
  if (!agent.isValidSessionId(stored.sessionId)) {
    // Whatever is not a session id never reaches --resume.
    options.logger.warn(`Discarded .ralph/.claude_session_id: ${describeRejectedId(stored.sessionId)} is not a ${sessionLabel(agent)} session id`);
    sessions.agent.set(undefined);
    return undefined;
  }
  const ageHours = Math.max(0, Math.floor((options.clock.now() - stored.savedAtMs) / 3_600_000));
  if (ageHours >= expiryHours) {
    options.logger.info(`Session expired (${ageHours}h old, max ${expiryHours}h), starting new session`);
    sessions.agent.set(undefined);
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
export function saveAgentSession(sessions: RunSessions, agent: AgentAdapter, sessionId: string, options: StateReadOptions, usage?: TokenUsage): void {
  sessions.agent.set({ agent: agent.name, sessionId, savedAtMs: options.clock.now(), ...(usage ? { usage } : {}) });
  options.logger.info(`Saved ${sessionLabel(agent)} session: ${sessionId.slice(0, 20)}...`);
}

/** Gives .ralph_session a session when it has none or was unreadable (Bash `init_session_tracking`). */
export function initRalphSession(sessions: RunSessions, options: StateReadOptions): void {
  if (!sessions.ralphCorrupt && sessions.ralph.value.session_id) return;
  const now = formatIsoTimestamp(options.clock.now());
  const sessionId = `ralph-${Math.floor(options.clock.now() / 1000)}-${Math.floor(Math.random() * 32768)}`;
  if (sessions.ralphCorrupt) options.logger.warn('Corrupted session file detected, recreating...');
  sessions.ralph.set({
    session_id: sessionId,
    created_at: now,
    last_used: now,
    reset_at: sessions.ralphCorrupt ? now : '',
    reset_reason: sessions.ralphCorrupt ? 'corrupted_file_recovery' : '',
  });
  if (!sessions.ralphCorrupt) options.logger.info(`Initialized session tracking (session: ${sessionId})`);
  sessions.ralphCorrupt = false;
}

/** Each loop: .ralph_session's last_used (written only when the second changed). */
export function touchRalphSession(sessions: RunSessions, options: StateReadOptions): void {
  const current = sessions.ralph.value;
  const lastUsed = formatIsoTimestamp(options.clock.now());
  if (!current.session_id || current.last_used === lastUsed) return;
  sessions.ralph.set({ ...current, last_used: lastUsed });
}

/**
 * Bash `reset_session` outside a run (--reset-session, --reset-circuit): forget the agent
 * session, the last analysis and the exit signals, and record why.
 */
export function resetSession(paths: RalphPaths, reason: SessionResetReason, loopNumber: number, options: StateReadOptions): void {
  saveRalphSession(paths, resetRalphSessionFile(reason, options));
  rmSync(paths.claudeSessionId, { force: true });
  rmSync(paths.responseAnalysis, { force: true });
  if (existsSync(paths.exitSignals)) writeJsonAtomic(paths.exitSignals, defaultExitSignalsFile());
  appendRalphSessionHistory(paths, resetEntry(reason, loopNumber, options), options);
  options.logger.info(`Session reset: ${reason}`);
}

/** What a session reset inside a run changes: the run's sessions, exit signals and last analysis. */
export interface SessionResetTarget {
  readonly state: { readonly sessions: RunSessions; readonly evidence: ExitEvidence };
  readonly readOptions: StateReadOptions;
}

/** The same inside a run, through what it holds: its sessions, exit signals and last analysis. */
export function resetRunSession(
  run: SessionResetTarget,
  reason: SessionResetReason,
  loopNumber: number,
  /** The run ends here: keep its last analysis for the views (the next run clears it). */
  end?: { keepAnalysis: boolean },
): void {
  run.state.sessions.ralph.set(resetRalphSessionFile(reason, run.readOptions));
  run.state.sessions.agent.set(undefined);
  clearExitEvidence(run.state.evidence, end?.keepAnalysis ?? false);
  run.state.sessions.history.append(resetEntry(reason, loopNumber, run.readOptions));
  run.readOptions.logger.info(`Session reset: ${reason}`);
}

function resetRalphSessionFile(reason: SessionResetReason, options: StateReadOptions): RalphSessionFile {
  return { session_id: '', created_at: '', last_used: '', reset_at: formatIsoTimestamp(options.clock.now()), reset_reason: reason };
}

function resetEntry(reason: SessionResetReason, loopNumber: number, options: StateReadOptions): RalphSessionHistoryEntry {
  return { timestamp: formatIsoTimestamp(options.clock.now()), from_state: 'active', to_state: 'reset', reason, loop_number: loopNumber };
}
