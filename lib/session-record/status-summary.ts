// The run record as `ralph --status --json` and the monitor show it: status, goal, the last
// attempt and verification, and the gap with its trend — without the observations' raw output,
// which can run to megabytes. Pure.

import { describeGap } from './gap.js';
import type { RunRecord } from './schema.js';

export interface RunStatusSummary {
  run_id: string;
  status: RunRecord['status'];
  created_at: string;
  updated_at: string;
  goal: { type: RunRecord['goal']['type']; summary: string };
  attempts: number;
  resumes: number;
  last_attempt: { loop: number; state: string; outcome: string | null; ended_at: string | null } | null;
  last_verification: { loop: number; status: string; passed: number; failed: number; skipped: number; failing: string[] } | null;
  gap: { metric: string; current: number; target: number; delta: number; trend: string } | null;
  /** `gap 3 (2 open items + 1 failing test) ↓ improving` */
  gap_text: string;
}

const FAILING_NAMES = 5;

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
    last_attempt: last ? { loop: last.loop, state: last.state, outcome: last.outcome, ended_at: last.ended_at } : null,
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
