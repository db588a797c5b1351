// The run record as `ralph --status --json` and the monitor show it: status, goal, the last
// attempt and verification, and the gap with its trend — without the observations' raw output,
// which can run to megabytes. summarizeRunForStatus is pure; readRunSummaryForStatus reads the
// newest record without loading the zod schema (--status must start fast) and changes nothing.

import { readFileSync } from 'node:fs';
import type { RalphPaths } from '../state/paths.js';
import { describeGap } from './gap-text.js';
import { listRunRecordFiles, RUN_RECORD_SCHEMA_VERSION } from './record-files.js';
import type { RunRecord } from './schema.js';

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

export function summarizeRunForStatus(record: RunRecord): RunStatusSummary {
  const last = record.attempts[record.attempts.length - 1];
  const verification = record.last_verification;
  const gap = record.gap;
  return {
    run_id: record.run_id,
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
    goal: { type: record.goal.type, summary: record.goal.summary },
    attempts: record.attempts.length,
    resumes: record.resumes.length,
    last_attempt: last ? { loop: last.loop, state: last.state, outcome: last.outcome, ended_at: last.ended_at, agent: last.agent ?? null } : null,
    agents_by_loop: record.attempts.slice(-AGENT_LOOPS).map((a) => ({ loop: a.loop, agent: a.agent ?? null, agent_result: a.agent_result })),
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
export function readRunSummaryForStatus(paths: RalphPaths): RunStatusSummary | null {
  for (const file of listRunRecordFiles(paths)) {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    const version = isObject(data) ? data.schema_version : undefined;
    if (typeof version === 'number' && version !== RUN_RECORD_SCHEMA_VERSION) return null;
    if (!looksLikeRunRecord(data)) continue;
    try {
      return summarizeRunForStatus(data);
    } catch {
      continue;
    }
  }
  return null;
}

function looksLikeRunRecord(data: unknown): data is RunRecord {
  if (!isObject(data) || data.schema_version !== RUN_RECORD_SCHEMA_VERSION) return false;
  const { goal, last_verification: verification, gap } = data;
  return (
    ['run_id', 'status', 'created_at', 'updated_at'].every((key) => typeof data[key] === 'string') &&
    isObject(goal) &&
    typeof goal.type === 'string' &&
    typeof goal.summary === 'string' &&
    Array.isArray(data.attempts) &&
    data.attempts.every(isObject) &&
    Array.isArray(data.resumes) &&
    (verification === null || (isObject(verification) && Array.isArray(verification.failures))) &&
    (gap === null || (isObject(gap) && Array.isArray(gap.history) && typeof gap.trend === 'string'))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
