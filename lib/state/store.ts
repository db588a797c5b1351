// Typed load/save for each `.ralph/` state file: the one place that pairs a path with its schema,
// its default and how forgiving its reader must be. Saves are atomic; loads never throw.

import { appendJsonl, writeJsonAtomic, type WriteAtomicOptions } from './atomic-write.js';
import { appendBoundedJsonArray, loadHeldHistory, readJsonArray, type HeldHistory } from './history.js';
import { readJsonl, type JsonlReadResult } from './jsonl.js';
import type { RalphPaths } from './paths.js';
import {
  CIRCUIT_BREAKER_HISTORY_MAX,
  RALPH_SESSION_HISTORY_MAX,
  circuitBreakerFileSchema,
  circuitBreakerHistoryEntrySchema,
  defaultCircuitBreakerFile,
  defaultExitSignalsFile,
  defaultProgressFile,
  defaultRalphSessionFile,
  defaultResponseAnalysisFile,
  defaultStatusFile,
  exitSignalsFileSchema,
  metricsLineSchema,
  progressFileSchema,
  ralphSessionFileSchema,
  ralphSessionHistoryEntrySchema,
  responseAnalysisFileSchema,
  statusFileSchema,
  type CircuitBreakerFile,
  type CircuitBreakerHistoryEntry,
  type ExitSignalsFile,
  type MetricsLine,
  type ProgressFile,
  type RalphSessionFile,
  type RalphSessionHistoryEntry,
  type ResponseAnalysisFile,
  type StatusFile,
} from './schemas.js';
import { readStateFile, type StateReadOptions, type StateReadResult } from './state-file.js';

type Paths = Pick<
  RalphPaths,
  | 'status'
  | 'progress'
  | 'exitSignals'
  | 'responseAnalysis'
  | 'circuitBreakerState'
  | 'circuitBreakerHistory'
  | 'ralphSession'
  | 'ralphSessionHistory'
  | 'metrics'
>;

// status.json and progress.json are hand-built by the Bash tool with unescaped strings and
// written in place, so their readers salvage what they can instead of setting them aside.
const handBuilt = (options: StateReadOptions): StateReadOptions => ({ lenient: true, ...options });

export function loadStatus(paths: Pick<Paths, 'status'>, options: StateReadOptions): StateReadResult<StatusFile> {
  return readStateFile(paths.status, statusFileSchema, defaultStatusFile(), handBuilt(options));
}

export function saveStatus(paths: Pick<Paths, 'status'>, value: StatusFile, write?: WriteAtomicOptions): void {
  writeJsonAtomic(paths.status, value, write);
}

export function loadProgress(paths: Pick<Paths, 'progress'>, options: StateReadOptions): StateReadResult<ProgressFile> {
  return readStateFile(paths.progress, progressFileSchema, defaultProgressFile(), handBuilt(options));
}

export function saveProgress(paths: Pick<Paths, 'progress'>, value: ProgressFile, write?: WriteAtomicOptions): void {
  writeJsonAtomic(paths.progress, value, write);
}

export function loadExitSignals(paths: Pick<Paths, 'exitSignals'>, options: StateReadOptions): StateReadResult<ExitSignalsFile> {
  return readStateFile(paths.exitSignals, exitSignalsFileSchema, defaultExitSignalsFile(), options);
}

export function saveExitSignals(paths: Pick<Paths, 'exitSignals'>, value: ExitSignalsFile, write?: WriteAtomicOptions): void {
  writeJsonAtomic(paths.exitSignals, value, write);
}

export function loadResponseAnalysis(paths: Pick<Paths, 'responseAnalysis'>, options: StateReadOptions): StateReadResult<ResponseAnalysisFile> {
  return readStateFile(paths.responseAnalysis, responseAnalysisFileSchema, defaultResponseAnalysisFile(), options);
}

/** Mode 600: it keeps the agent's whole result text, which may quote anything it read. */
export function saveResponseAnalysis(paths: Pick<Paths, 'responseAnalysis'>, value: ResponseAnalysisFile, write?: WriteAtomicOptions): void {
  writeJsonAtomic(paths.responseAnalysis, value, { mode: 0o600, ...write });
}

export function loadCircuitBreaker(paths: Pick<Paths, 'circuitBreakerState'>, options: StateReadOptions): StateReadResult<CircuitBreakerFile> {
  return readStateFile(paths.circuitBreakerState, circuitBreakerFileSchema, defaultCircuitBreakerFile(), options);
}

export function saveCircuitBreaker(paths: Pick<Paths, 'circuitBreakerState'>, value: CircuitBreakerFile, write?: WriteAtomicOptions): void {
  writeJsonAtomic(paths.circuitBreakerState, value, write);
}

export function loadCircuitBreakerHistory(
  paths: Pick<Paths, 'circuitBreakerHistory'>,
  options: StateReadOptions,
): StateReadResult<CircuitBreakerHistoryEntry[]> {
  return readJsonArray(paths.circuitBreakerHistory, circuitBreakerHistoryEntrySchema, options);
}

/** Keeps the newest 100 entries. */
export function appendCircuitBreakerHistory(
  paths: Pick<Paths, 'circuitBreakerHistory'>,
  entry: CircuitBreakerHistoryEntry,
  options: StateReadOptions,
): CircuitBreakerHistoryEntry[] {
  return appendBoundedJsonArray(paths.circuitBreakerHistory, circuitBreakerHistoryEntrySchema, entry, CIRCUIT_BREAKER_HISTORY_MAX, options);
}

/** The breaker's history held for a run (read once; the newest 100 entries written through). */
export function holdCircuitBreakerHistory(paths: Pick<Paths, 'circuitBreakerHistory'>, options: StateReadOptions): HeldHistory<CircuitBreakerHistoryEntry> {
  return loadHeldHistory(paths.circuitBreakerHistory, circuitBreakerHistoryEntrySchema, CIRCUIT_BREAKER_HISTORY_MAX, options);
}

export function loadRalphSession(paths: Pick<Paths, 'ralphSession'>, options: StateReadOptions): StateReadResult<RalphSessionFile> {
  return readStateFile(paths.ralphSession, ralphSessionFileSchema, defaultRalphSessionFile(), options);
}

export function saveRalphSession(paths: Pick<Paths, 'ralphSession'>, value: RalphSessionFile, write?: WriteAtomicOptions): void {
  writeJsonAtomic(paths.ralphSession, value, write);
}

export function loadRalphSessionHistory(paths: Pick<Paths, 'ralphSessionHistory'>, options: StateReadOptions): StateReadResult<RalphSessionHistoryEntry[]> {
  return readJsonArray(paths.ralphSessionHistory, ralphSessionHistoryEntrySchema, options);
}

/** Keeps the newest 50 entries. */
export function appendRalphSessionHistory(
  paths: Pick<Paths, 'ralphSessionHistory'>,
  entry: RalphSessionHistoryEntry,
  options: StateReadOptions,
): RalphSessionHistoryEntry[] {
  return appendBoundedJsonArray(paths.ralphSessionHistory, ralphSessionHistoryEntrySchema, entry, RALPH_SESSION_HISTORY_MAX, options);
}

/** The session resets held for a run (read once; the newest 50 entries written through). */
export function holdRalphSessionHistory(paths: Pick<Paths, 'ralphSessionHistory'>, options: StateReadOptions): HeldHistory<RalphSessionHistoryEntry> {
  return loadHeldHistory(paths.ralphSessionHistory, ralphSessionHistoryEntrySchema, RALPH_SESSION_HISTORY_MAX, options);
}

export function appendMetrics(paths: Pick<Paths, 'metrics'>, line: MetricsLine): void {
  appendJsonl(paths.metrics, line);
}

export function loadMetrics(paths: Pick<Paths, 'metrics'>): JsonlReadResult<MetricsLine> {
  return readJsonl(paths.metrics, metricsLineSchema);
}
