// How a run record lies on disk (schema_version 2), and the pure conversions both ways. The
// summary `<run-id>.json` stays the same size however long the run: goal, status, counts, the
// last attempt, the last verification and the gap (with its newest sample only). Settled attempts
// (finished or cut off) are lines of `<run-id>.attempts.jsonl`, each with the gap sample taken
// when it finished; observations are lines of `<run-id>.observations.jsonl`. A loop appends its
// lines, then rewrites the summary: the summary's counts say how many lines belong to the
// record, so a line appended by a writer killed before its summary write, or torn by the kill,
// is not part of it. A schema_version 1 record (everything inline) is read as it is.

import * as z from '../state/zod.js';
import { attemptsLogName, INLINE_RECORD_SCHEMA_VERSION, observationsLogName } from './record-files.js';
import {
  attemptSchema,
  gapSampleSchema,
  gapSchema,
  RUN_RECORD_SCHEMA_VERSION,
  runRecordSchema,
  type Attempt,
  type GapSample,
  type Observation,
  type RunRecord,
} from './record-schema.js';
import { MAX_GAP_HISTORY } from './gap.js';
import { MAX_OBSERVATIONS } from './observations.js';

export const attemptLineSchema = attemptSchema.extend({
  /** The gap sample taken when this attempt finished (null: cut off, or none taken). */
  gap_sample: gapSampleSchema.nullable(),
});
export type AttemptLine = z.infer<typeof attemptLineSchema>;

export const runSummarySchema = runRecordSchema
  .omit({ attempts: true, attempts_dropped: true, observations: true, observations_dropped: true, gap: true })
  .extend({
    attempts_file: z.string().min(1),
    /** Lines of attempts_file that belong to the record (settled attempts, oldest first). */
    attempts_logged: z.number().int().nonnegative(),
    /** All attempts: the logged ones, and the last one when it is still running. */
    attempt_count: z.number().int().nonnegative(),
    /** The newest attempt; when running, it is here only (it is logged once it settles). */
    last_attempt: attemptSchema.nullable(),
    observations_file: z.string().min(1),
    observations_logged: z.number().int().nonnegative(),
    /** Observations made before the log began (a record migrated from schema 1 had dropped them). */
    observations_before_log: z.number().int().nonnegative(),
    /** The gap with its newest sample only (the history is in the attempts log). */
    gap: gapSchema.nullable(),
  });
export type RunSummary = z.infer<typeof runSummarySchema>;

export const inlineRunRecordSchema = runRecordSchema.extend({ schema_version: z.literal(INLINE_RECORD_SCHEMA_VERSION) });

/** How much of the in-memory record the logs on disk already hold. */
export interface LogPosition {
  /** Settled attempts logged: record.attempts[0 .. attempts) are lines of the attempts log. */
  attempts: number;
  /** Observation lines in the observations log. */
  observations: number;
  /** Observations (counted in observations_dropped) that were never logged. */
  observationsBeforeLog: number;
}

export const NOTHING_LOGGED: LogPosition = { attempts: 0, observations: 0, observationsBeforeLog: 0 };

/** The lines to append and the summary to write after them, to bring the disk up to `record`. */
export interface RecordWrite {
  attemptLines: AttemptLine[];
  observationLines: Observation[];
  summary: RunSummary;
  position: LogPosition;
}

export function planRecordWrite(record: RunRecord, position: LogPosition): RecordWrite {
  const last = record.attempts.at(-1);
  // record.attempts[i] is the run's attempt number dropped + i: the older ones are logged already.
  const dropped = record.attempts_dropped ?? 0;
  const count = dropped + record.attempts.length;
  const settled = last?.state === 'running' ? count - 1 : count;
  const attemptLines = record.attempts
    .slice(Math.max(0, position.attempts - dropped), settled - dropped)
    .map((attempt) => toAttemptLine(attempt, record.gap?.history ?? []));
  const total = record.observations_dropped + record.observations.length;
  const unlogged = total - position.observationsBeforeLog - position.observations;
  // More observations than the record keeps were made since the last write: the oldest are lost.
  const lost = Math.max(0, unlogged - record.observations.length);
  const observationLines = unlogged > 0 ? record.observations.slice(record.observations.length - (unlogged - lost)) : [];
  const next: LogPosition = {
    attempts: Math.max(position.attempts, settled),
    observations: position.observations + observationLines.length,
    observationsBeforeLog: position.observationsBeforeLog + lost,
  };
  const { attempts: _attempts, attempts_dropped: _attemptsDropped, observations: _observations, observations_dropped: _dropped, gap, ...rest } = record;
  const summary: RunSummary = {
    ...rest,
    schema_version: RUN_RECORD_SCHEMA_VERSION,
    attempts_file: attemptsLogName(record.run_id),
    attempts_logged: next.attempts,
    attempt_count: count,
    last_attempt: last ?? null,
    observations_file: observationsLogName(record.run_id),
    observations_logged: next.observations,
    observations_before_log: next.observationsBeforeLog,
    gap: gap ? { ...gap, history: gap.history.slice(-1) } : null,
  };
  return { attemptLines, observationLines, summary, position: next };
}

/** The in-memory record from a summary and the log lines that belong to it. */
export function assembleRunRecord(summary: RunSummary, attemptLines: readonly AttemptLine[], observationLines: readonly Observation[]): RunRecord {
  const attempts: Attempt[] = attemptLines.map(({ gap_sample: _sample, ...attempt }) => attempt);
  if (summary.last_attempt?.state === 'running') attempts.push(summary.last_attempt);
  const history = attemptLines.flatMap((line) => (line.gap_sample ? [line.gap_sample] : [])).slice(-MAX_GAP_HISTORY);
  const observations = observationLines.slice(-MAX_OBSERVATIONS);
  const {
    attempts_file: _af,
    attempts_logged: _al,
    attempt_count: _ac,
    last_attempt: _la,
    observations_file: _of,
    observations_logged: _ol,
    observations_before_log: before,
    gap,
    ...rest
  } = summary;
  return {
    ...rest,
    attempts,
    observations,
    observations_dropped: before + observationLines.length - observations.length,
    gap: gap ? { ...gap, history: history.length > 0 ? history : gap.history } : null,
  };
}

/** The gap sample of a finished attempt: the newest sample of its loop (finished loops are unique). */
function toAttemptLine(attempt: Attempt, history: readonly GapSample[]): AttemptLine {
  let sample: GapSample | null = null;
  if (attempt.state === 'finished') for (const s of history) if (s.loop === attempt.loop) sample = s;
  return { ...attempt, gap_sample: sample };
}
