// Observations: what the loop saw each attempt — each gate command's exit code, duration,
// output (capped at 16 KiB: the head and the tail, where runners put the failures and the
// summary) and structured counts — and the verification summary the next loop and a resume
// read. The record in memory keeps the newest MAX_OBSERVATIONS (all of them are in the
// observations log on disk). Pure.

import type { SameFailuresState } from '../verify/verification.js';
import type { CommandVerification, VerificationResult } from '../verify/verification-result.js';
import { assertMutable, isoTime } from './run-record.js';
import type { Observation, RunRecord, VerificationSummary } from './record-schema.js';

export const MAX_RAW_BYTES = 16 * 1024;
export const MAX_OBSERVATIONS = 200;
const HEAD_BYTES = 4 * 1024;
const SUMMARY_FAILURES = 20;

export interface CappedText {
  text: string;
  truncated: boolean;
  bytes: number;
}

/** At most maxBytes of UTF-8: the first quarter and the last part, with a marker between. */
export function capRawText(text: string, maxBytes = MAX_RAW_BYTES): CappedText {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false, bytes: bytes.length };
  const marker = Buffer.from(`\n…[${bytes.length - maxBytes} bytes cut]…\n`, 'utf8');
  const headEnd = boundaryBefore(bytes, Math.min(HEAD_BYTES, Math.floor(maxBytes / 4)));
  const room = maxBytes - headEnd - marker.length - 8; // the marker's number may be shorter or longer by a few digits
  const tailStart = boundaryAfter(bytes, bytes.length - Math.max(0, room));
  const cutBytes = tailStart - headEnd;
  const finalMarker = `\n…[${cutBytes} bytes cut]…\n`;
  const capped = bytes.subarray(0, headEnd).toString('utf8') + finalMarker + bytes.subarray(tailStart).toString('utf8');
  return { text: capped, truncated: true, bytes: bytes.length };
}

export interface AddObservationOptions {
  loop: number;
  now: number;
  source: Observation['source'];
  command?: string | null;
  exitCode: number | null;
  durationMs: number;
  raw: string;
  /** Cap for raw (default MAX_RAW_BYTES); an agent's reply needs less than a test run's output. */
  maxRawBytes?: number;
  data?: Observation['data'];
}

export function addObservation(record: RunRecord, options: AddObservationOptions): RunRecord {
  assertMutable(record);
  const raw = capRawText(options.raw, Math.min(options.maxRawBytes ?? MAX_RAW_BYTES, MAX_RAW_BYTES));
  const observation: Observation = {
    loop: options.loop,
    at: isoTime(options.now),
    source: options.source,
    command: options.command ?? null,
    exit_code: options.exitCode,
    duration_ms: Math.max(0, Math.round(options.durationMs)),
    raw: raw.text,
    truncated: raw.truncated,
    raw_bytes: raw.bytes,
    ...(options.data === undefined ? {} : { data: options.data }),
  };
  const all = [...record.observations, observation];
  const dropped = Math.max(0, all.length - MAX_OBSERVATIONS);
  return {
    ...record,
    updated_at: isoTime(options.now),
    observations: dropped > 0 ? all.slice(dropped) : all,
    observations_dropped: record.observations_dropped + dropped,
  };
}

export interface RecordVerificationOptions {
  loop: number;
  now: number;
  result: VerificationResult;
  /** The same-failures count after this result (nextSameFailures). */
  sameFailures: SameFailuresState;
}

/** One observation per gate command, and the result as the run's last verification. */
export function recordVerification(record: RunRecord, options: RecordVerificationOptions): RunRecord {
  let next = record;
  for (const command of options.result.commands) {
    next = addObservation(next, {
      loop: options.loop,
      now: options.now,
      source: command.role === 'test' ? 'test' : 'quality-gate',
      command: command.command,
      exitCode: command.exitCode,
      durationMs: command.durationMs,
      raw: command.output,
      data: commandData(command),
    });
  }
  return { ...next, last_verification: summarizeVerification(options) };
}

export function summarizeVerification(options: RecordVerificationOptions): VerificationSummary {
  const { result } = options;
  return {
    loop: options.loop,
    at: isoTime(options.now),
    status: result.status,
    passed: result.passed,
    failed: result.failed,
    skipped: result.skipped,
    duration_ms: Math.max(0, Math.round(result.durationMs)),
    failures: result.failures.slice(0, SUMMARY_FAILURES).map((f) => ({ name: f.name, message: f.message })),
    failures_omitted: result.failuresOmitted + Math.max(0, result.failures.length - SUMMARY_FAILURES),
    commands: result.commands.map((c) => ({ command: c.command, role: c.role, status: c.status })),
    signature: options.sameFailures.signature,
    same_failures_count: options.sameFailures.count,
  };
}

function commandData(command: CommandVerification): Observation['data'] {
  return {
    status: command.status,
    format: command.format,
    passed: command.passed,
    failed: command.failed,
    skipped: command.skipped,
    timed_out: command.timedOut,
    failures: command.failures.slice(0, SUMMARY_FAILURES).map((f) => ({ name: f.name, message: f.message })),
    failures_omitted: command.failuresOmitted + Math.max(0, command.failures.length - SUMMARY_FAILURES),
  };
}

// Cut points that do not split a UTF-8 character.
function boundaryBefore(bytes: Buffer, index: number): number {
  let i = Math.max(0, Math.min(index, bytes.length));
  while (i > 0 && i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i--;
  return i;
}

function boundaryAfter(bytes: Buffer, index: number): number {
  let i = Math.max(0, Math.min(index, bytes.length));
  while (i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i++;
  return i;
}
