// zod schemas, types and defaults for every `.ralph/` state file the Bash tool also uses.
// Field names and types are the compatibility contract; objects are loose
// so fields written by the other version (or a newer one) survive a read-modify-write.
// Each schema is built on its first parse (`z.lazy`), not when this module loads: a command
// builds only the schemas of the files it reads (`--circuit-status` reads one), which keeps the
// read-only commands within their start-up budgets (docs/performance.md).

import * as z from './zod.js';
import {
  booleanField,
  nullableBooleanField,
  nullableNumberField,
  nullableStringField,
  numberField,
  numberListField,
  optionalNumberField,
  optionalStringField,
  stringField,
  stringListField,
} from './schema-fields.js';

/** status.json's `run_alerts`: the newest this many. */
export const MAX_RUN_ALERTS = 5;

// status.json — written every loop; read by `ralph --status` and the monitor.
export const statusFileSchema = z.lazy(() =>
  z.looseObject({
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
    /** What the guards undid or refused in this run, newest last (the monitor shows them). */
    run_alerts: z.array(z.string()).optional(),
    /**
     * Loops that got past their guards and ran in this ralph process: the count every view shows.
     * `loop_count` (the Bash tool's) is the loop number reached, so it is one more when a guard
     * stopped the run before the loop it had counted; `run_loops` counts a resumed run's loops too.
     */
    loops_run: optionalNumberField(),
    /** The closing summary of the run that wrote this file, once it ended (loop/run-summary.ts). */
    run_summary: z.looseObject({ lines: z.array(z.string()) }).optional(),
    /** Open plan items the agent hid, which still count as open ("the agent removed 3 open items …"). */
    plan_note: optionalStringField(),
  }),
);
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
export const progressFileSchema = z.lazy(() =>
  z.looseObject({
    status: stringField(),
    indicator: optionalStringField(),
    elapsed_seconds: optionalNumberField(),
    last_output: optionalStringField(),
    /** `YYYY-MM-DD HH:MM:SS`, local time. */
    timestamp: stringField(),
    files_changed: optionalNumberField(),
    error: optionalStringField(),
  }),
);
export type ProgressFile = z.infer<typeof progressFileSchema>;

export function defaultProgressFile(): ProgressFile {
  return { status: '', timestamp: '' };
}

// .exit_signals — the ≤5 most recent loop numbers per signal.
export const exitSignalsFileSchema = z.lazy(() =>
  z.looseObject({
    test_only_loops: numberListField(),
    done_signals: numberListField(),
    completion_indicators: numberListField(),
  }),
);
export type ExitSignalsFile = z.infer<typeof exitSignalsFileSchema>;

export function defaultExitSignalsFile(): ExitSignalsFile {
  return { test_only_loops: [], done_signals: [], completion_indicators: [] };
}

// .response_analysis — the analysis of the last agent output: the Bash tool's fields, then ours
// (absent from a Bash-written file, so they read as "not known"). analysis/response-analysis.ts
// produces exactly this type; the loop saves it as it is.

/** The RALPH_STATUS block as stored (ours; a field the agent left out is null). */
export const ralphStatusRecordSchema = z.lazy(() =>
  z.looseObject({
    status: nullableStringField(),
    tasks_completed_this_loop: nullableNumberField(),
    files_modified: nullableNumberField(),
    tests_status: nullableStringField(),
    work_type: nullableStringField(),
    exit_signal: nullableBooleanField(),
    recommendation: nullableStringField(),
  }),
);
export type RalphStatusRecord = z.infer<typeof ralphStatusRecordSchema>;

export const responseAnalysisFieldsSchema = z.lazy(() =>
  z.looseObject({
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
    /** The Bash tool writes these on its JSON path only. */
    has_compound_command_limitation: booleanField(),
    compound_command_count: numberField(),
    asking_questions: booleanField(),
    question_count: numberField(),
    // Ours, beyond the Bash shape:
    /** The CLI reported is_error: the run failed whatever its exit code; no claim counts. */
    is_error: booleanField(),
    error_count: numberField(),
    /** errorSignature() of the result text ('' when no error line). */
    error_signature: stringField(),
    ralph_status: z.preprocess((v) => v ?? null, ralphStatusRecordSchema.nullable()),
    tests_status: nullableStringField(),
    work_type: nullableStringField(),
    tasks_completed: nullableNumberField(),
    /** FILES_MODIFIED as the agent reported it (RALPH_STATUS, else the result's metadata); null: not reported. */
    files_modified_claimed: nullableNumberField(),
    /** How the agent's report and ralph's measurement disagree, or null. */
    claim_disagreement: nullableStringField(),
  }),
);
export type ResponseAnalysisFields = z.infer<typeof responseAnalysisFieldsSchema>;

export const responseAnalysisFileSchema = z.lazy(() =>
  z.looseObject({
    loop_number: numberField(),
    timestamp: stringField(),
    output_file: stringField(),
    output_format: z.preprocess((v) => v ?? 'json', z.enum(['json', 'text'])),
    analysis: z.preprocess((v) => v ?? {}, responseAnalysisFieldsSchema),
  }),
);
export type ResponseAnalysisFile = z.infer<typeof responseAnalysisFileSchema>;

export function defaultResponseAnalysisFields(): ResponseAnalysisFields {
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
    has_compound_command_limitation: false,
    compound_command_count: 0,
    asking_questions: false,
    question_count: 0,
    is_error: false,
    error_count: 0,
    error_signature: '',
    ralph_status: null,
    tests_status: null,
    work_type: null,
    tasks_completed: null,
    files_modified_claimed: null,
    claim_disagreement: null,
  };
}

export function defaultResponseAnalysisFile(): ResponseAnalysisFile {
  return { loop_number: 0, timestamp: '', output_file: '', output_format: 'json', analysis: defaultResponseAnalysisFields() };
}

// .circuit_breaker_state and .circuit_breaker_history, in the Bash tool's shape.
export const breakerStates = ['CLOSED', 'HALF_OPEN', 'OPEN'] as const;
export type BreakerStateName = (typeof breakerStates)[number];

/** Ours: the content ids seen in this run (analysis/progress-evidence.ts); a malformed one is dropped. */
export const contentMemorySchema = z.lazy(() => z.object({ run: z.string(), seen: z.array(z.string()) }));

export const circuitBreakerFileSchema = z.lazy(() =>
  z.looseObject({
    state: z.preprocess((v) => v ?? 'CLOSED', z.enum(breakerStates)),
    /** ISO timestamp of the last update (Bash rewrites it on every recorded loop). */
    last_change: stringField(),
    consecutive_no_progress: numberField(),
    consecutive_same_error: numberField(),
    consecutive_permission_denials: numberField(),
    last_progress_loop: numberField(),
    total_opens: numberField(),
    reason: stringField(),
    /** Left out by the Bash tool's auto-reset variant: read as 0. */
    current_loop: numberField(),
    /** Set on entering OPEN, kept while OPEN; the cooldown counts from here. */
    opened_at: optionalStringField(),
    /** Ours: "same error" means the same signature, not any error (null: the last loop had none). */
    last_error_signature: z.string().nullable().optional(),
    /** Ours: questions already held the count once since the last progress. */
    question_hold_used: z.boolean().optional().catch(undefined),
    /** Ours: kept here so a resumed run keeps its content memory. */
    seen_content: contentMemorySchema.optional().catch(undefined),
  }),
);
export type CircuitBreakerFile = z.infer<typeof circuitBreakerFileSchema>;

/** A missing or unreadable file, and a new breaker (breaker/circuit-breaker.ts initialBreakerState adds the time). */
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

export const circuitBreakerHistoryEntrySchema = z.lazy(() =>
  z.looseObject({
    timestamp: stringField(),
    loop: numberField(),
    from_state: stringField(),
    to_state: stringField(),
    reason: stringField(),
  }),
);
export type CircuitBreakerHistoryEntry = z.infer<typeof circuitBreakerHistoryEntrySchema>;
export const CIRCUIT_BREAKER_HISTORY_MAX = 100;

// .claude_session_id — canonical JSON form (the legacy plain-text id is handled in
// claude-session-id.ts).
export const claudeSessionFileSchema = z.lazy(() =>
  z.looseObject({
    session_id: z.string().trim().min(1),
    timestamp: stringField(),
    /** The agent whose session it is (absent: Claude, as before agents beyond Claude). */
    agent: z.string().optional().catch(undefined),
    /** The session's running token total when the agent reports one (Codex): the next call's usage is the difference. */
    usage: z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheCreation: z.number() }).optional().catch(undefined),
  }),
);
export type ClaudeSessionFile = z.infer<typeof claudeSessionFileSchema>;

// .ralph_session — after a reset every field but reset_at / reset_reason is "".
export const ralphSessionFileSchema = z.lazy(() =>
  z.looseObject({
    session_id: stringField(),
    created_at: stringField(),
    last_used: stringField(),
    reset_at: stringField(),
    reset_reason: stringField(),
  }),
);
export type RalphSessionFile = z.infer<typeof ralphSessionFileSchema>;

export function defaultRalphSessionFile(): RalphSessionFile {
  return { session_id: '', created_at: '', last_used: '', reset_at: '', reset_reason: '' };
}

export const ralphSessionHistoryEntrySchema = z.lazy(() =>
  z.looseObject({
    timestamp: stringField(),
    from_state: stringField('active'),
    to_state: stringField('reset'),
    reason: stringField(),
    loop_number: numberField(),
  }),
);
export type RalphSessionHistoryEntry = z.infer<typeof ralphSessionHistoryEntrySchema>;
export const RALPH_SESSION_HISTORY_MAX = 50;

// logs/metrics.jsonl — one line per loop.
export const metricsLineSchema = z.lazy(() =>
  z.looseObject({
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
  }),
);
export type MetricsLine = z.infer<typeof metricsLineSchema>;

// .usage_limit_wait (ours) — a pending wait for the agent's usage limit; survives a restart.
export const usageWaitFileSchema = z.lazy(() =>
  z.looseObject({
    resume_at: z.string(),
    resume_at_ms: z.number(),
    reason: z.string().default(''),
    source: z.string().default('fallback'),
    detected_at: z.string().default(''),
  }),
);
export type UsageWaitFile = z.infer<typeof usageWaitFileSchema>;

// .run_state (ours) — the spend of one run (limits/spend.ts's SpendState), kept across restarts
// while that run goes on. The inner objects are exact so the type is SpendState itself.
export const runStateFileSchema = z.lazy(() =>
  z.looseObject({
    /** The session record's run id; absent in a dry run and in files written before spend belonged to the run. */
    run_id: z.string().optional(),
    started_at_ms: z.number(),
    /** Time ralph has spent on this run, up to the last save (the run-time budget counts this). */
    active_ms: z.number().nonnegative().default(0),
    spend: z.object({
      run: z.object({
        tokens: z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheCreation: z.number() }),
        costUsd: z.number().nonnegative(),
        loops: z.number().int().nonnegative(),
        unknownCostLoops: z.number().int().nonnegative().default(0),
        inFlight: z.boolean().default(false),
        unknownChargedUsd: z.number().nonnegative().optional(),
        unknownCostStreak: z.number().int().nonnegative().optional(),
        maxCallCostUsd: z.number().nonnegative().optional(),
        inFlightCapUsd: z.number().nonnegative().optional(),
      }),
      hour: z.object({ key: z.string(), tokens: z.number(), costUsd: z.number() }),
      lastCumulativeBySession: z.record(z.string(), z.number()),
    }),
  }),
);
export type RunStateFile = z.infer<typeof runStateFileSchema>;
