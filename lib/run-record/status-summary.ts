// The run record as `ralph --status --json` and the monitor show it: status, goal, the last
// attempt and verification, and the gap with its trend — without the observations' raw output,
// which can run to megabytes. summarizeRunForStatus is pure; readRunSummaryForStatus reads the
// newest record's summary file (and, for the agent of each of the last loops, the end of its
// attempts log, when asked) without loading the zod schema (--status must start fast) and
// changes nothing.

import { dirname, join } from 'node:path';
import { readRegularFile, readRegularFileTail, readRegularFileWithin } from '../state/control-file.js';
import type { RalphPaths } from '../state/paths.js';
import { describeGap } from './gap-text.js';
import { attemptsLogName, INLINE_RECORD_SCHEMA_VERSION, listRunRecordFiles, RUN_RECORD_SCHEMA_VERSION } from './record-files.js';
import type { RunRecord } from './record-schema.js';

export interface RunStatusSummary {
  run_id: string;
  status: RunRecord['status'];
  created_at: string;
  updated_at: string;
  goal: { type: RunRecord['goal']['type']; summary: string };
  attempts: number;
  resumes: number;
  last_attempt: { loop: number; state: string; outcome: string | null; ended_at: string | null; agent: string | null } | null;
  /** Which agent ran each of the last loops (the fallback between agents shows here). */
  agents_by_loop: Array<{ loop: number; agent: string | null; agent_result: string | null }>;
  last_verification: { loop: number; status: string; passed: number; failed: number; skipped: number; failing: string[] } | null;
  gap: { metric: string; current: number; target: number; delta: number; trend: string } | null;
  /** `gap 3 (2 open items + 1 failing test) ↓ improving` */
  gap_text: string;
}

const FAILING_NAMES = 5;
const AGENT_LOOPS = 50;
// The end of the attempts log holds the last loops; the log itself grows with the run.
const ATTEMPTS_TAIL_BYTES = 1024 * 1024;

export function summarizeRunForStatus(record: RunRecord): RunStatusSummary {
  return summarizeRun({
    ...record,
    attempt_count: (record.attempts_dropped ?? 0) + record.attempts.length,
    last_attempt: record.attempts.at(-1) ?? null,
    recent_attempts: record.attempts.slice(-AGENT_LOOPS),
  });
}

/** What the summary needs: a record's summary file (schema 2) has all of it. */
type SummaryInput = Pick<RunRecord, 'run_id' | 'status' | 'created_at' | 'updated_at' | 'goal' | 'resumes' | 'last_verification' | 'gap'> & {
  attempt_count: number;
  last_attempt: Attempt | null;
  /** The last attempts, oldest first (for the agent of each loop). */
  recent_attempts: Attempt[];
};

function summarizeRun(record: SummaryInput): RunStatusSummary {
  const last = record.last_attempt;
  const verification = record.last_verification;
  const gap = record.gap;
  return {
    run_id: record.run_id,
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
    goal: { type: record.goal.type, summary: record.goal.summary },
    attempts: record.attempt_count,
    resumes: record.resumes.length,
    last_attempt: last ? { loop: last.loop, state: last.state, outcome: last.outcome, ended_at: last.ended_at, agent: last.agent ?? null } : null,
    agents_by_loop: record.recent_attempts.map((a) => ({ loop: a.loop, agent: a.agent ?? null, agent_result: a.agent_result ?? null })),
    last_verification: verification
      ? {
          loop: verification.loop,
          status: verification.status,
          passed: verification.passed,
          failed: verification.failed,
          skipped: verification.skipped,
          failing: verification.failures.slice(0, FAILING_NAMES).map((f) => f.name),
        }
      : null,
    gap: gap ? { metric: gap.metric, current: gap.current, target: gap.target, delta: gap.delta, trend: gap.trend } : null,
    gap_text: describeGap(gap),
  };
}

/**
 * The newest record's summary, or null when there is none. Read-only: an unreadable record is
 * skipped (the loop sets it aside when it next starts); one of another schema version means a
 * newer ralph owns the runs, so none is shown. The shape is checked only as far as the summary
 * reads it, which keeps the schema (and zod's start-up cost) out of `ralph --status`.
 */
export function readRunSummaryForStatus(paths: RalphPaths, options: SummaryReadOptions = {}): RunStatusSummary | null {
  let budget = options.maxBytes ?? Infinity;
  for (const file of options.files ?? listRunRecordFiles(paths)) {
    let data: unknown;
    try {
      // The agent can write .ralph/sessions/: a FIFO there is skipped, not waited on, and a
      // file bigger than what is left of the budget is not read.
      const read = Number.isFinite(budget) ? readRegularFileWithin(file, budget) : { text: readRegularFile(file) };
      if (read?.text === undefined) continue;
      budget -= Buffer.byteLength(read.text);
      data = JSON.parse(read.text);
    } catch {
      continue;
    }
    const version = isObject(data) ? data.schema_version : undefined;
    if (typeof version === 'number' && version !== RUN_RECORD_SCHEMA_VERSION && version !== INLINE_RECORD_SCHEMA_VERSION) return null;
    const input = summaryInputOf(data, file, options.agentsByLoop ?? true);
    if (!input) continue;
    try {
      return summarizeRun(input);
    } catch {
      continue;
    }
  }
  return null;
}

export interface SummaryReadOptions {
  /**
   * The agent of each of the last loops (`agents_by_loop`), read from the attempts log; a view
   * that shows none (the dashboard, the web view: they read the summary every loop) says false,
   * leaves the log unread and gets an empty list.
   */
  agentsByLoop?: boolean;
  /**
   * The most bytes of records read in all (none by default). A view that reads them while the run
   * goes on (`ralph --web` in the loop's own process) gives one: the agent can put a record of
   * any size in .ralph/sessions/, named to sort as the newest.
   */
  maxBytes?: number;
  /** The record files, newest first, as the caller listed them (listRunRecordFiles otherwise). */
  files?: readonly string[];
}

/** A schema 2 summary file as it is; a schema 1 record (attempts inline) counted here. */
function summaryInputOf(data: unknown, file: string, agentsByLoop: boolean): SummaryInput | undefined {
  if (!looksLikeRunSummary(data)) return undefined;
  if (data.schema_version === RUN_RECORD_SCHEMA_VERSION) {
    const { attempt_count: count, last_attempt: last } = data;
    if (typeof count !== 'number' || !(last === null || isAttempt(last))) return undefined;
    if (!agentsByLoop) return { ...data, attempt_count: count, last_attempt: last, recent_attempts: [] };
    const recent = recentLoggedAttempts(join(dirname(file), attemptsLogName(data.run_id)));
    if (last && recent.at(-1)?.loop !== last.loop) recent.push(last);
    return { ...data, attempt_count: count, last_attempt: last, recent_attempts: recent.slice(-AGENT_LOOPS) };
  }
  const { attempts } = data;
  if (!Array.isArray(attempts) || !attempts.every(isAttempt)) return undefined;
  return { ...data, attempt_count: attempts.length, last_attempt: attempts.at(-1) ?? null, recent_attempts: attempts.slice(-AGENT_LOOPS) };
}

/** The last attempts of an attempts log (a torn or foreign line is skipped), one per loop. */
function recentLoggedAttempts(path: string): Attempt[] {
  let text: string;
  try {
    text = readRegularFileTail(path, ATTEMPTS_TAIL_BYTES) ?? '';
  } catch {
    return [];
  }
  const byLoop = new Map<number, Attempt>();
  for (const line of text.split('\n').slice(-4 * AGENT_LOOPS)) {
    try {
      const value: unknown = JSON.parse(line);
      const attempt = isObject(value) && isObject(value.attempt) ? value.attempt : value;
      if (isAttempt(attempt)) byLoop.set(attempt.loop, attempt);
    } catch {
      continue;
    }
  }
  return [...byLoop.values()].sort((a, b) => a.loop - b.loop);
}

type Attempt = RunRecord['attempts'][number];

/** As far as the summary reads an attempt. */
function isAttempt(value: unknown): value is Attempt {
  return isObject(value) && typeof value.loop === 'number' && typeof value.state === 'string';
}

function looksLikeRunSummary(data: unknown): data is Record<string, unknown> & Omit<SummaryInput, 'attempt_count' | 'last_attempt'> {
  if (!isObject(data)) return false;
  const { goal, last_verification: verification, gap } = data;
  return (
    ['run_id', 'status', 'created_at', 'updated_at'].every((key) => typeof data[key] === 'string') &&
    isObject(goal) &&
    typeof goal.type === 'string' &&
    typeof goal.summary === 'string' &&
    Array.isArray(data.resumes) &&
    (verification === null || (isObject(verification) && Array.isArray(verification.failures))) &&
    (gap === null || (isObject(gap) && Array.isArray(gap.history) && typeof gap.trend === 'string'))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
