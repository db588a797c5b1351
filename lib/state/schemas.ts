// zod schemas, types and defaults for every `.ralph/` state file the Bash tool also uses
// (reference §2.3). Field names and types are the compatibility contract; objects are loose
// so fields written by the other version (or a newer one) survive a read-modify-write.

import { z } from 'zod';
import {
  booleanField,
  numberField,
  numberListField,
  optionalBooleanField,
  optionalNumberField,
  optionalStringField,
  stringField,
  stringListField,
} from './schema-fields.js';

// status.json — written every loop; read by `ralph --status` and the monitor.
export const statusFileSchema = z.looseObject({
  timestamp: stringField(),
  loop_count: numberField(),
  calls_made_this_hour: numberField(),
  max_calls_per_hour: numberField(100),
  tokens_used_this_hour: numberField(),
  max_tokens_per_hour: numberField(),
  last_action: stringField(),
  status: stringField(),
  exit_reason: stringField(),
  sandbox: z.preprocess((v) => v ?? { provider: 'none' }, z.looseObject({ provider: stringField('none') })),
  /** `HH:MM:SS`, local time. */
  next_reset: stringField(),
  // Ours (the Bash tool never writes these; its monitor ignores them).
  pid: optionalNumberField(),
  started_at: optionalStringField(),
  max_loops: optionalNumberField(),
  run_tokens: optionalNumberField(),
  run_cost_usd: optionalNumberField(),
  /** The run's agent calls (a resumed run's included) and those of unknown cost (cut off). */
  run_loops: optionalNumberField(),
  run_unknown_cost_calls: optionalNumberField(),
  max_cost_usd: optionalNumberField(),
  /** ISO time the agent's usage limit resets, while waiting for it. */
  usage_limit_resets_at: optionalStringField(),
});
export type StatusFile = z.infer<typeof statusFileSchema>;

export function defaultStatusFile(): StatusFile {
  return {
    timestamp: '',
    loop_count: 0,
    calls_made_this_hour: 0,
    max_calls_per_hour: 100,
    tokens_used_this_hour: 0,
    max_tokens_per_hour: 0,
    last_action: '',
    status: '',
    exit_reason: '',
    sandbox: { provider: 'none' },
    next_reset: '',
  };
}

// progress.json — `executing` while the agent runs, then `completed` / `failed` /
// `timed_out_productive`. The Bash tool writes `last_output` unescaped (often invalid JSON).
export const progressFileSchema = z.looseObject({
  status: stringField(),
  indicator: optionalStringField(),
  elapsed_seconds: optionalNumberField(),
  last_output: optionalStringField(),
  /** `YYYY-MM-DD HH:MM:SS`, local time. */
  timestamp: stringField(),
  files_changed: optionalNumberField(),
  error: optionalStringField(),
});
export type ProgressFile = z.infer<typeof progressFileSchema>;

export function defaultProgressFile(): ProgressFile {
  return { status: '', timestamp: '' };
}

// .exit_signals — the ≤5 most recent loop numbers per signal.
export const exitSignalsFileSchema = z.looseObject({
  test_only_loops: numberListField(),
  done_signals: numberListField(),
  completion_indicators: numberListField(),
});
export type ExitSignalsFile = z.infer<typeof exitSignalsFileSchema>;

export function defaultExitSignalsFile(): ExitSignalsFile {
  return { test_only_loops: [], done_signals: [], completion_indicators: [] };
}

// .response_analysis — the analysis of the last agent output.
export const responseAnalysisSchema = z.looseObject({
  has_completion_signal: booleanField(),
  is_test_only: booleanField(),
  is_stuck: booleanField(),
  has_progress: booleanField(),
  files_modified: numberField(),
  confidence_score: numberField(),
  exit_signal: booleanField(),
  work_summary: stringField(),
  /** In characters. */
  output_length: numberField(),
  has_permission_denials: booleanField(),
  permission_denial_count: numberField(),
  denied_commands: stringListField(),
  /** JSON path only. */
  has_compound_command_limitation: optionalBooleanField(),
  compound_command_count: optionalNumberField(),
  asking_questions: booleanField(),
  question_count: numberField(),
});
export type ResponseAnalysis = z.infer<typeof responseAnalysisSchema>;

export const responseAnalysisFileSchema = z.looseObject({
  loop_number: numberField(),
  timestamp: stringField(),
  output_file: stringField(),
  output_format: z.preprocess((v) => v ?? 'json', z.enum(['json', 'text'])),
  analysis: z.preprocess((v) => v ?? {}, responseAnalysisSchema),
});
export type ResponseAnalysisFile = z.infer<typeof responseAnalysisFileSchema>;

export function defaultResponseAnalysis(): ResponseAnalysis {
  return {
    has_completion_signal: false,
    is_test_only: false,
    is_stuck: false,
    has_progress: false,
    files_modified: 0,
    confidence_score: 0,
    exit_signal: false,
    work_summary: '',
    output_length: 0,
    has_permission_denials: false,
    permission_denial_count: 0,
    denied_commands: [],
    asking_questions: false,
    question_count: 0,
  };
}

export function defaultResponseAnalysisFile(): ResponseAnalysisFile {
  return { loop_number: 0, timestamp: '', output_file: '', output_format: 'json', analysis: defaultResponseAnalysis() };
}

// .circuit_breaker_state and .circuit_breaker_history (reference §6).
export const breakerStates = ['CLOSED', 'HALF_OPEN', 'OPEN'] as const;
export type BreakerStateName = (typeof breakerStates)[number];

export const circuitBreakerFileSchema = z.looseObject({
  state: z.preprocess((v) => v ?? 'CLOSED', z.enum(breakerStates)),
  last_change: stringField(),
  consecutive_no_progress: numberField(),
  consecutive_same_error: numberField(),
  consecutive_permission_denials: numberField(),
  last_progress_loop: numberField(),
  total_opens: numberField(),
  reason: stringField(),
  /** Left out by the Bash tool's auto-reset variant. */
  current_loop: optionalNumberField(),
  /** Set on entering OPEN, kept while OPEN. */
  opened_at: optionalStringField(),
  /** Ours: "same error" means the same signature, not any error. */
  last_error_signature: optionalStringField(),
});
export type CircuitBreakerFile = z.infer<typeof circuitBreakerFileSchema>;

export function defaultCircuitBreakerFile(): CircuitBreakerFile {
  return {
    state: 'CLOSED',
    last_change: '',
    consecutive_no_progress: 0,
    consecutive_same_error: 0,
    consecutive_permission_denials: 0,
    last_progress_loop: 0,
    total_opens: 0,
    reason: '',
    current_loop: 0,
  };
}

export const circuitBreakerHistoryEntrySchema = z.looseObject({
  timestamp: stringField(),
  loop: numberField(),
  from_state: stringField(),
  to_state: stringField(),
  reason: stringField(),
});
export type CircuitBreakerHistoryEntry = z.infer<typeof circuitBreakerHistoryEntrySchema>;
export const circuitBreakerHistorySchema = z.array(circuitBreakerHistoryEntrySchema);
export const CIRCUIT_BREAKER_HISTORY_MAX = 100;

// .claude_session_id — canonical JSON form (the legacy plain-text id is handled in
// claude-session-id.ts).
export const claudeSessionFileSchema = z.looseObject({
  session_id: z.string().trim().min(1),
  timestamp: stringField(),
  /** The agent whose session it is (absent: Claude, as before agents beyond Claude). */
  agent: z.string().optional().catch(undefined),
  /** The session's running token total when the agent reports one (Codex): the next call's usage is the difference. */
  usage: z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheCreation: z.number() }).optional().catch(undefined),
});
export type ClaudeSessionFile = z.infer<typeof claudeSessionFileSchema>;

// .ralph_session — after a reset every field but reset_at / reset_reason is "".
export const ralphSessionFileSchema = z.looseObject({
  session_id: stringField(),
  created_at: stringField(),
  last_used: stringField(),
  reset_at: stringField(),
  reset_reason: stringField(),
});
export type RalphSessionFile = z.infer<typeof ralphSessionFileSchema>;

export function defaultRalphSessionFile(): RalphSessionFile {
  return { session_id: '', created_at: '', last_used: '', reset_at: '', reset_reason: '' };
}

export const ralphSessionHistoryEntrySchema = z.looseObject({
  timestamp: stringField(),
  from_state: stringField('active'),
  to_state: stringField('reset'),
  reason: stringField(),
  loop_number: numberField(),
});
export type RalphSessionHistoryEntry = z.infer<typeof ralphSessionHistoryEntrySchema>;
export const ralphSessionHistorySchema = z.array(ralphSessionHistoryEntrySchema);
export const RALPH_SESSION_HISTORY_MAX = 50;

// logs/metrics.jsonl — one line per loop.
export const metricsLineSchema = z.looseObject({
  timestamp: stringField(),
  loop: numberField(),
  /** Seconds. */
  duration: numberField(),
  success: booleanField(),
  calls: numberField(),
  // Ours.
  tokens: optionalNumberField(),
  cost_usd: optionalNumberField(),
  files_changed: optionalNumberField(),
});
export type MetricsLine = z.infer<typeof metricsLineSchema>;
