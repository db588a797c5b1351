// Attempts: one per loop that called the agent. Started before the call (so a crash leaves a
// `running` attempt behind, which a resume marks cut-off and runs again), finished after the
// loop's outcome is known. Pure; see run-record.ts for the rules every change follows.

import type { VerificationOutcome } from '../verify/verification.js';
import { assertMutable, isoTime, RunRecordError, transitionRun } from './run-record.js';
import type { Attempt, AttemptOutcome, AttemptTokens, RunRecord } from './record-schema.js';

/** A pending run becomes active here if the loop has not activated it already. */
export function activateRun(record: RunRecord, now: number): RunRecord {
  return record.status === 'pending' ? transitionRun(record, 'active', 'run started', now) : record;
}

/**
 * The attempt still running, if any. Only the newest can be: startAttempt adds one only when
 * none runs, and a record read back has its running attempts cut off before its run goes on
 * (run-start.ts). So a loop looks at one attempt, however many the run has made.
 */
function runningAttempt(record: RunRecord): Attempt | undefined {
  const newest = record.attempts.at(-1);
  return newest?.state === 'running' ? newest : undefined;
}

export function startAttempt(record: RunRecord, loop: number, now: number): RunRecord {
  assertMutable(record);
  const running = runningAttempt(record);
  if (running) throw new RunRecordError(`Attempt for loop ${running.loop} is still running`, 'attempt-running');
  const active = activateRun(record, now);
  const attempt: Attempt = {
    loop,
    state: 'running',
    started_at: isoTime(now),
    ended_at: null,
    duration_ms: null,
    action: 'agent call',
    outcome: null,
    agent_result: null,
    agent_session_id: null,
    agent: null,
    tokens: { input: 0, output: 0, cache_read: 0, cache_creation: 0 },
    cost_usd: 0,
    files_changed: [],
    files_changed_count: 0,
  };
  return { ...active, updated_at: isoTime(now), attempts: [...active.attempts, attempt] };
}

export interface FinishAttemptOptions {
  loop: number;
  now: number;
  /** What the attempt did (a line of the agent's summary); default 'agent call'. */
  action?: string;
  /** The verification outcome; 'unverified' when the gate did not run. */
  outcome: VerificationOutcome | 'unverified';
  /** How the agent call ended (AgentFailureResult kind: ok, failed, timeout, …). */
  agentResult: string;
  agentSessionId?: string | null;
  /** The agent that ran the loop. */
  agent?: string;
  tokens?: Partial<AttemptTokens>;
  costUsd?: number;
  filesChanged?: readonly string[];
}

export const MAX_FILES_LISTED = 100;
const MAX_ACTION_CHARS = 300;

export function finishAttempt(record: RunRecord, options: FinishAttemptOptions): RunRecord {
  assertMutable(record);
  const attempt = runningAttempt(record);
  if (attempt?.loop !== options.loop) throw new RunRecordError(`No running attempt for loop ${options.loop}`, 'no-such-attempt');
  const index = record.attempts.length - 1;
  const files = options.filesChanged ?? [];
  const finished: Attempt = {
    ...attempt,
    state: 'finished',
    ended_at: isoTime(options.now),
    duration_ms: Math.max(0, options.now - Date.parse(attempt.started_at)),
    action: oneLine(options.action ?? attempt.action),
    outcome: options.outcome satisfies AttemptOutcome,
    agent_result: options.agentResult,
    agent_session_id: options.agentSessionId ?? null,
    agent: options.agent ?? attempt.agent ?? null,
    tokens: {
      input: whole(options.tokens?.input),
      output: whole(options.tokens?.output),
      cache_read: whole(options.tokens?.cache_read),
      cache_creation: whole(options.tokens?.cache_creation),
    },
    cost_usd: Math.max(0, options.costUsd ?? 0),
    files_changed: files.slice(0, MAX_FILES_LISTED),
    files_changed_count: files.length,
  };
  const attempts = record.attempts.slice();
  attempts[index] = finished;
  return { ...record, updated_at: isoTime(options.now), attempts };
}

/**
 * The record with its oldest attempts left to the attempts log: those already logged (`logged`:
 * the log's settled attempts, counted from the run's first) beyond the newest `keep`. A long
 * run then holds a bounded record in memory however many loops it makes; the count of attempts
 * stays (attempts_dropped + attempts.length).
 */
export function forgetLoggedAttempts(record: RunRecord, logged: number, keep: number): RunRecord {
  const dropped = record.attempts_dropped ?? 0;
  const forget = Math.min(logged - dropped, record.attempts.length - keep);
  if (forget <= 0) return record;
  return { ...record, attempts: record.attempts.slice(forget), attempts_dropped: dropped + forget };
}

/** Running attempts become cut-off (ralph died or was stopped during them). */
export function cutOffRunningAttempts(record: RunRecord, now: number): { record: RunRecord; cutOff: number[] } {
  const cutOff = record.attempts.filter((a) => a.state === 'running').map((a) => a.loop);
  if (cutOff.length === 0) return { record, cutOff };
  assertMutable(record);
  const attempts = record.attempts.map((a) =>
    a.state === 'running' ? { ...a, state: 'cut-off' as const, action: a.action === 'agent call' ? 'agent call (cut off)' : a.action } : a,
  );
  return { record: { ...record, updated_at: isoTime(now), attempts }, cutOff };
}

/** The loop after the last finished attempt: where a resumed run goes on. */
export function nextLoopNumber(record: RunRecord): number {
  const finished = record.attempts.filter((a) => a.state === 'finished').map((a) => a.loop);
  return finished.length === 0 ? 1 : Math.max(...finished) + 1;
}

function oneLine(text: string): string {
  const line =
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? 'agent call';
  return line.length > MAX_ACTION_CHARS ? `${line.slice(0, MAX_ACTION_CHARS - 1)}…` : line;
}

function whole(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
