// A run record's life: created pending, active once its first attempt starts, and ended
// converged (the gate passed), escalated (a guard halted it for a person to look at) or failed
// (it cannot go on) or exhausted (it stopped at one of its budgets). Ended records are immutable. Every change returns a new record; an illegal
// change throws RunRecordError, because it is a bug in the caller, not an outcome. Pure.

import { randomBytes } from 'node:crypto';
import { isTerminalStatus, RUN_RECORD_SCHEMA_VERSION, type RunRecord, type RunStatus } from './record-schema.js';

export class RunRecordError extends Error {
  constructor(
    message: string,
    readonly code: 'illegal-transition' | 'terminal-record' | 'no-such-attempt' | 'attempt-running',
  ) {
    super(message);
    this.name = 'RunRecordError';
  }
}

const TRANSITIONS: Record<RunStatus, readonly RunStatus[]> = {
  pending: ['active', 'failed'],
  active: ['converged', 'escalated', 'failed', 'exhausted'],
  converged: [],
  escalated: [],
  failed: [],
  exhausted: [],
};

export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export interface CreateRunRecordOptions {
  now: number;
  goal: RunRecord['goal'];
  /** Default: newRunId(now). */
  runId?: string;
}

export function createRunRecord(options: CreateRunRecordOptions): RunRecord {
  const at = isoTime(options.now);
  return {
    schema_version: RUN_RECORD_SCHEMA_VERSION,
    run_id: options.runId ?? newRunId(options.now),
    created_at: at,
    updated_at: at,
    goal: options.goal,
    status: 'pending',
    status_history: [{ status: 'pending', at, reason: 'run created' }],
    resumes: [],
    attempts: [],
    observations: [],
    observations_dropped: 0,
    last_verification: null,
    gap: null,
  };
}

/** `20261130T031000Z-a1b2c3`: sorts by creation time, unique enough per project. */
export function newRunId(now: number, random: () => string = () => randomBytes(3).toString('hex')): string {
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  return `${stamp}-${random()}`;
}

/**
 * A new id that sorts after `previous` (the newest record), so "newest" stays right when two
 * runs start within one second (or the clock stepped back): then it takes the second after.
 */
export function newRunIdAfter(previous: string | undefined, now: number, random?: () => string): string {
  const id = newRunId(now, random);
  if (previous === undefined || id > previous) return id;
  const stamp = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z-/.exec(previous);
  const at = stamp ? Date.UTC(+stamp[1]!, +stamp[2]! - 1, +stamp[3]!, +stamp[4]!, +stamp[5]!, +stamp[6]!) : NaN;
  return Number.isNaN(at) ? id : newRunId(at + 1000, random);
}

export function transitionRun(record: RunRecord, to: RunStatus, reason: string, now: number): RunRecord {
  assertMutable(record);
  if (!canTransition(record.status, to)) {
    throw new RunRecordError(`Run ${record.run_id} cannot go from ${record.status} to ${to}`, 'illegal-transition');
  }
  const at = isoTime(now);
  return { ...record, status: to, updated_at: at, status_history: [...record.status_history, { status: to, at, reason }] };
}

export function assertMutable(record: RunRecord): void {
  if (isTerminalStatus(record.status)) {
    throw new RunRecordError(`Run ${record.run_id} has ended (${record.status}) and cannot change`, 'terminal-record');
  }
}

/**
 * The status a run ends with for a ralph exit code, or null when it stays resumable:
 * 0 converged · 2 escalated (a guard halted it) · 1 failed (the agent cannot run) ·
 * 3 (a limit), 130 and 143 (interrupted) keep it active so the next `ralph` continues it.
 */
export function runStatusForExit(exitCode: number): Extract<RunStatus, 'converged' | 'escalated' | 'failed'> | null {
  if (exitCode === 0) return 'converged';
  if (exitCode === 2) return 'escalated';
  if (exitCode === 1) return 'failed';
  return null;
}

export function isoTime(now: number): string {
  return new Date(now).toISOString();
}
