// The iteration session record: one run of the loop — its goal, status (pending → active →
// converged / escalated / failed / exhausted), every attempt with its outcome, the observations
// made (command output, exit codes), the last verification and the gap to the goal. This is the
// record as ralph holds it; on disk (schema_version 2) it is a summary with the attempts and
// observations in JSONL logs beside it (record-layout.ts). Ours alone (the Bash tool has no such
// file). A breaking change bumps schema_version; readers leave records of a newer version alone.

import * as z from '../state/zod.js';
import { RUN_RECORD_SCHEMA_VERSION } from './record-files.js';

export { RUN_RECORD_SCHEMA_VERSION };

/** exhausted: the run stopped at one of its budgets (--max-loops, --max-cost, run time). */
export const RUN_STATUSES = ['pending', 'active', 'converged', 'escalated', 'failed', 'exhausted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const ATTEMPT_OUTCOMES = ['tests-passing', 'improving', 'regressing', 'stuck', 'error', 'unverified'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export const GOAL_TYPES = ['checklist', 'tests', 'checklist+tests', 'open-ended'] as const;
export type GoalType = (typeof GOAL_TYPES)[number];

export const GAP_TRENDS = ['improving', 'stagnant', 'worsening'] as const;
export type GapTrend = (typeof GAP_TRENDS)[number];

const count = () => z.number().int().nonnegative();
const timestamp = () => z.string().min(1);

const tokensSchema = z.object({
  input: count(),
  output: count(),
  cache_read: count(),
  cache_creation: count(),
});

export const attemptSchema = z.object({
  loop: z.number().int().positive(),
  /** running: in progress (or cut off by a crash, until the run resumes) · cut-off: ralph stopped mid-attempt. */
  state: z.enum(['running', 'finished', 'cut-off']),
  started_at: timestamp(),
  ended_at: timestamp().nullable(),
  duration_ms: count().nullable(),
  /** What the attempt did, in a line (the agent's own summary when it gave one). */
  action: z.string(),
  outcome: z.enum(ATTEMPT_OUTCOMES).nullable(),
  /** How the agent call ended: ok, failed, timeout, … */
  agent_result: z.string().nullable(),
  agent_session_id: z.string().nullable(),
  /** The agent that ran the loop (claude, codex, …); null in records written before fallbacks. */
  agent: z.string().nullable().default(null),
  tokens: tokensSchema,
  cost_usd: z.number().nonnegative(),
  files_changed: z.array(z.string()),
  files_changed_count: count(),
});

export const observationSchema = z.object({
  loop: z.number().int().nonnegative(),
  at: timestamp(),
  source: z.enum(['test', 'quality-gate', 'agent', 'guarded-file']),
  command: z.string().nullable(),
  exit_code: z.number().int().nullable(),
  duration_ms: count(),
  /** At most 16 KiB (UTF-8) of the output; `truncated` says whether some was cut. */
  raw: z.string(),
  truncated: z.boolean(),
  raw_bytes: count(),
  data: z.json().optional(),
});

const failureSchema = z.object({ name: z.string(), message: z.string() });

export const verificationSummarySchema = z.object({
  loop: z.number().int().nonnegative(),
  at: timestamp(),
  status: z.enum(['passed', 'failed', 'error', 'not-verified']),
  passed: count(),
  failed: count(),
  skipped: count(),
  duration_ms: count(),
  failures: z.array(failureSchema),
  failures_omitted: count(),
  commands: z.array(z.object({ command: z.string(), role: z.enum(['test', 'quality-gate']), status: z.enum(['passed', 'failed', 'error', 'not-verified']) })),
  /** Identifies the failing set; null when passing. */
  signature: z.string().nullable(),
  /** Consecutive loops with the same failing set (CB_SAME_FAILURES_THRESHOLD). */
  same_failures_count: count(),
});

export const gapSampleSchema = z.object({
  loop: z.number().int().nonnegative(),
  open_items: count().nullable(),
  failing_tests: count().nullable(),
  value: count(),
});

export const gapSchema = z.object({
  metric: z.literal('open_items+failing_tests'),
  current: count(),
  target: count(),
  delta: z.number().int(),
  trend: z.enum(GAP_TRENDS),
  history: z.array(gapSampleSchema),
});

export const runRecordSchema = z.object({
  schema_version: z.literal(RUN_RECORD_SCHEMA_VERSION),
  run_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/),
  created_at: timestamp(),
  updated_at: timestamp(),
  goal: z.object({
    type: z.enum(GOAL_TYPES),
    summary: z.string(),
    source: z.enum(['fix_plan.md', 'PROMPT.md']),
    open_items_at_start: count().nullable(),
    test_command: z.string().nullable(),
  }),
  status: z.enum(RUN_STATUSES),
  status_history: z.array(z.object({ status: z.enum(RUN_STATUSES), at: timestamp(), reason: z.string() })),
  resumes: z.array(z.object({ at: timestamp(), next_loop: z.number().int().positive(), cut_off_loops: z.array(z.number().int().positive()) })),
  attempts: z.array(attemptSchema),
  /** Attempts before `attempts` that only the attempts log holds (the loop keeps the newest in memory); none when absent. */
  attempts_dropped: count().optional(),
  observations: z.array(observationSchema),
  observations_dropped: count(),
  last_verification: verificationSummarySchema.nullable(),
  gap: gapSchema.nullable(),
});

export type RunRecord = z.infer<typeof runRecordSchema>;
export type Attempt = z.infer<typeof attemptSchema>;
export type Observation = z.infer<typeof observationSchema>;
export type VerificationSummary = z.infer<typeof verificationSummarySchema>;
export type GapSample = z.infer<typeof gapSampleSchema>;
export type Gap = z.infer<typeof gapSchema>;
export type AttemptTokens = z.infer<typeof tokensSchema>;

export function isTerminalStatus(status: RunStatus): boolean {
  return status === 'converged' || status === 'escalated' || status === 'failed' || status === 'exhausted';
}
