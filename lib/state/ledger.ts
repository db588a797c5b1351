// The ledger: ralph's own record of a project's run, kept outside the project where the agent
// cannot write (`$XDG_STATE_HOME/ralph/<slug>-<hash>/ledger.json`, default
// `~/.local/state/ralph/`, keyed by the project's real path; never mounted into a sandbox). It
// holds the run id, the run's calls, cost and tokens, whether the run is unfinished, the
// hourly call window with the wall clock and a boot reading beside it, the circuit breaker,
// the backups ralph made (`--backup`: the refs it may
// prune) and the PRD files the user queued (`ralph-queue add --prd`: the files outside the
// project a queue item may name). `.ralph/.call_count`,
// `.last_reset`, `.run_state` and the others are views written from it: on load the ledger wins.
// Beside it, `plan-memory.json` and its log: the plan items ralph counts as open, across runs (plan-memory-file.ts),
// and `content-memory.json`: the content ids the breaker has seen in the run (content-memory-file.ts).

import { mkdirSync, statSync } from 'node:fs';
import { readRegularFile } from './control-file.js';
import { dirname } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { circuitBreakerFileSchema, runStateFileSchema, type CircuitBreakerFile, type RunStateFile } from './schemas.js';
import * as z from './zod.js';
import { realPathOf } from './ledger-path.js';

export { LEDGER_FILE, PLAN_MEMORY_FILE, ledgerPath, ledgerRoot, planMemoryPath } from './ledger-path.js';

const ledgerSchema = z.looseObject({
  version: z.literal(1),
  project: z.string(),
  run: z.object({ state: runStateFileSchema, unfinished: z.boolean() }).nullable().default(null),
  rate: z
    .object({
      calls: z.number().int().nonnegative(),
      tokens: z.number().int().nonnegative(),
      lastReset: z.string(),
      wall_ms: z.number(),
      boot_id: z.string().optional(),
      uptime_ms: z.number().optional(),
      /** The local zone's offset at wall_ms (Date#getTimezoneOffset): lastReset is named in it. */
      utc_offset_min: z.number().optional(),
    })
    .nullable()
    .default(null),
  /** The circuit breaker (its content ids, `seen_content`, are in a file beside the ledger: state/content-memory-file.ts). */
  breaker: circuitBreakerFileSchema.nullable().default(null),
  /** The parallel run (ralph --parallel): each unit's cost and the run time so far. */
  parallel: z
    .object({ run_id: z.string(), active_ms: z.number().nonnegative(), units: z.record(z.string(), z.number().nonnegative()) })
    .nullable()
    .default(null),
  /** The backup refs ralph made, oldest first: only these are ever pruned. */
  backups: z.array(z.object({ ref: z.string(), commit: z.string(), created_at: z.number() })).default([]),
  /** Real paths of the PRD files queued with `ralph-queue add --prd`. */
  queued_prds: z.array(z.string()).default([]),
  /** The tests the last passing gate run executed: what a later pass is measured against, across runs. */
  tests_baseline: z.number().int().nonnegative().nullable().default(null),
});

export type Ledger = z.infer<typeof ledgerSchema>;
export type LedgerRate = NonNullable<Ledger['rate']>;
export type LedgerBackup = Ledger['backups'][number];

/**
 * The ledger, or undefined when there is none yet; an unreadable one is reported and not trusted.
 * Inside `batchLedgerWrites`, the ledger as the step changed it so far (not written yet).
 */
export function readLedger(path: string, warn: (message: string) => void): Ledger | undefined {
  const held = pending?.get(path);
  if (held) return structuredClone(held);
  const text = readStateText(path, 'the ledger', warn);
  if (text === undefined) return undefined;
  validated++;
  const parsed = ledgerSchema.safeParse(safeJson(text));
  if (parsed.success) return parsed.data;
  warn(`The ledger ${path} is unreadable; ralph starts it again from .ralph/ (remove it if this keeps happening)`);
  return undefined;
}

/** Ledger files read and validated so far in this process. */
let validated = 0;

/** How many ledger files this process has read and validated (tests count an update's). */
export function ledgerValidationCount(): number {
  return validated;
}

/**
 * The ledgers this process wrote last, each as read back from its text, and the file it then
 * was: the loop updates the ledger several times a loop, and while the file is still the one
 * written (same inode, size and times) it need not be read and validated again. Another writer
 * (a `ralph-queue add` meanwhile) changes the file, and the next update reads it. One per
 * ledger, the newest last: the units of `ralph --parallel` each update their own beside the
 * run's, turn about.
 */
const lastWritten = new Map<string, { stamp: string; ledger: Ledger }>();
const REMEMBERED_LEDGERS = 32;

function fileStamp(path: string): string | undefined {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stats && `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/** The ledger as this process wrote it, when the file is still that one. */
function unchangedSinceWritten(path: string): Ledger | undefined {
  const written = lastWritten.get(path);
  if (written === undefined || written.stamp !== fileStamp(path)) return undefined;
  return written.ledger;
}

/**
 * The ledgers changed inside `batchLedgerWrites`, not written yet: the loop changes several parts
 * of the ledger in one step (the call's tokens, its spend, the breaker), and each write replaces
 * the whole file.
 */
let pending: Map<string, Ledger> | undefined;

/**
 * Runs `step` (synchronous: nothing else runs meanwhile) with the ledger's updates held in
 * memory, then writes each changed ledger once. A `kill -9` inside the step leaves the ledger as
 * it was before the step, never a part of it; the step's updates read what it changed so far.
 */
export function batchLedgerWrites<T>(step: () => T): T {
  if (pending) return step();
  const held = new Map<string, Ledger>();
  const after: Array<() => void> = [];
  pending = held;
  afterPending = after;
  try {
    const result = step();
    if (result instanceof Promise) throw new Error('batchLedgerWrites takes a synchronous step');
    return result;
  } finally {
    pending = undefined;
    afterPending = undefined;
    for (const [path, ledger] of held) writeLedger(path, ledger);
    for (const action of after) action();
  }
}

/** What waits for the batch's ledger writes (the views of what the step changed). */
let afterPending: Array<() => void> | undefined;

/**
 * Writes the views of the ledger (`.call_count`, `.run_state`, …) after the ledger itself, also
 * inside a batch: a kill between the two leaves the ledger ahead of its views, never behind.
 */
export function afterLedgerWrites(write: () => void): void {
  if (afterPending) afterPending.push(write);
  else write();
}

/** Changes one part of the ledger and writes it whole, atomically (mode 600, its folder 700). */
export function updateLedger(path: string, projectDir: string, change: (ledger: Ledger) => Ledger): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const current = pending?.get(path) ??
    unchangedSinceWritten(path) ??
    readLedger(path, () => undefined) ?? {
      version: 1 as const,
      project: realPathOf(projectDir),
      run: null,
      rate: null,
      breaker: null,
      parallel: null,
      backups: [],
      queued_prds: [],
      tests_baseline: null,
    };
  const next = change(current);
  if (pending) pending.set(path, next);
  else writeLedger(path, next);
}

function writeLedger(path: string, ledger: Ledger): void {
  const text = `${JSON.stringify(ledger, null, 2)}\n`;
  lastWritten.delete(path);
  writeFileAtomic(path, text, { mode: 0o600 });
  const stamp = fileStamp(path);
  if (stamp === undefined) return;
  // What a read of the file gives: the written text parsed, so no caller's object is shared.
  lastWritten.set(path, { stamp, ledger: JSON.parse(text) as Ledger });
  if (lastWritten.size > REMEMBERED_LEDGERS) lastWritten.delete(lastWritten.keys().next().value!);
}

export function saveLedgerRun(path: string, projectDir: string, state: RunStateFile, unfinished: boolean): void {
  updateLedger(path, projectDir, (ledger) => ({ ...ledger, run: { state, unfinished } }));
}

export function saveLedgerRate(path: string, projectDir: string, rate: LedgerRate): void {
  updateLedger(path, projectDir, (ledger) => ({ ...ledger, rate }));
}

export function saveLedgerBreaker(path: string, projectDir: string, breaker: CircuitBreakerFile): void {
  updateLedger(path, projectDir, (ledger) => ({ ...ledger, breaker }));
}

export function saveLedgerBackups(path: string, projectDir: string, backups: LedgerBackup[]): void {
  updateLedger(path, projectDir, (ledger) => ({ ...ledger, backups }));
}

/** Records the test count of a passing gate run (or forgets it: null). */
export function saveLedgerTestsBaseline(path: string, projectDir: string, tests: number | null): void {
  updateLedger(path, projectDir, (ledger) => ({ ...ledger, tests_baseline: tests }));
}

/** Records a PRD file the user queued (its real path), once. */
export function recordQueuedPrd(path: string, projectDir: string, realPath: string): void {
  updateLedger(path, projectDir, (ledger) => (ledger.queued_prds.includes(realPath) ? ledger : { ...ledger, queued_prds: [...ledger.queued_prds, realPath] }));
}

/**
 * The text of a file kept beside the ledger: undefined when there is none, or when it cannot be
 * read or is no regular file (reported). The open does not block: a FIFO in its place is
 * reported, not a start that waits for a writer.
 */
export function readStateText(path: string, what: string, warn: (message: string) => void): string | undefined {
  try {
    return readRegularFile(path);
  } catch (error) {
    warn(`Cannot read ${what}: ${(error as Error).message}`);
    return undefined;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
