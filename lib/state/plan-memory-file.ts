// The plan's memory beside the ledger, outside the project where the agent cannot write, in two
// files. `plan-memory.json` holds the items as of its last writing, one a line, with a random
// generation; `plan-memory.log` holds the changes since, one JSON line each, after a first line
// naming the generation they apply to (a log of any other generation is not read). A change (an
// item done, one added) is one appended line, not the whole memory written again; when the log
// grows past a share of the memory it is folded in: the memory written whole under a new
// generation, then a new log. Both files are written following no link (the whole file
// atomically, the log with one O_APPEND write each), mode 600 in a folder of mode 700.
// A change is appended only to the log this process made, while both files are the ones it
// wrote: a file replaced by another process (`ralph --accept-item`, a fleet job's restore) makes
// the next change write the memory whole.

import { closeSync, constants, fstatSync, lstatSync, mkdirSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { planMemoryPath, realPathOf } from './ledger-path.js';
import { readStateText } from './ledger.js';
import { openNoFollow } from './no-follow.js';
import * as z from './zod.js';

export interface LedgerPlanItem {
  text: string;
  position: number;
}

/** One change of the memory: the indices dropped, the texts changed (by index), the items added last. */
export interface LedgerPlanChange {
  drop: number[];
  set: Array<[number, string]>;
  add: LedgerPlanItem[];
}

const itemSchema = z.looseObject({ text: z.string(), position: z.number().int().nonnegative() });

const ledgerPlanSchema = z.looseObject({
  version: z.literal(1),
  project: z.string(),
  /** Names the log that applies to these items; absent in a file written before the log. */
  generation: z.string().optional(),
  /**
   * The plan items ralph counts as open: their text and their last index. A file written before
   * this form also holds each item's normalised text (`key`), which the reader works out again.
   */
  open: z.array(itemSchema),
});

// A change's line leaves out its empty parts: an item done is `{"drop":[12]}`.
const changeSchema = z.object({
  drop: z.array(z.number().int().nonnegative()).default([]),
  set: z.array(z.tuple([z.number().int().nonnegative(), z.string()])).default([]),
  add: z.array(itemSchema).default([]),
});

/** The log of changes beside the memory `memoryFile`. */
export function planMemoryLogPath(memoryFile: string): string {
  return join(dirname(memoryFile), 'plan-memory.log');
}

/** The plan's memory kept beside the ledger `ledgerFile`, or undefined when there is none; an unreadable one is reported. */
export function readLedgerPlan(ledgerFile: string, warn: (message: string) => void): LedgerPlanItem[] | undefined {
  return readMemoryFile(planMemoryPath(ledgerFile), warn)?.open;
}

/**
 * Folds the log into the memory file `memoryFile` (written whole, for its one file to carry the
 * memory elsewhere: a fleet job's state branch); nothing when the log holds no change for it.
 */
export function foldPlanMemoryLog(memoryFile: string, warn: (message: string) => void): void {
  const read = readMemoryFile(memoryFile, warn);
  if (!read || read.changes === 0) return;
  writeMemoryFile(memoryFile, read.project, read.open);
}

/** The items of the memory file `path` with its log applied, the project it names, and how many changes the log held. */
function readMemoryFile(path: string, warn: (message: string) => void): { open: LedgerPlanItem[]; project: string; changes: number } | undefined {
  // The log first: a folding between the two reads then leaves a log of the older writing, not read.
  const logPath = planMemoryLogPath(path);
  const log = readStateText(logPath, "the plan's memory log", warn);
  const text = readStateText(path, "the plan's memory", warn);
  if (text === undefined) return undefined;
  const parsed = ledgerPlanSchema.safeParse(safeJson(text));
  if (!parsed.success) {
    warn(`The plan's memory ${path} is unreadable; ralph starts it again from fix_plan.md (remove it if this keeps happening)`);
    return undefined;
  }
  const open = parsed.data.open.map(({ text, position }) => ({ text, position }));
  const { generation, project } = parsed.data;
  const changes = generation === undefined || log === undefined ? 0 : applyLog(open, log, logPath, generation, warn);
  return { open, project, changes };
}

/** Applies to `open`, in order, the changes `text` (the log at `logPath`) holds for `generation`; how many it applied. */
function applyLog(open: LedgerPlanItem[], text: string, logPath: string, generation: string, warn: (message: string) => void): number {
  const lines = text.split('\n');
  if ((safeJson(lines[0]!) as { generation?: unknown } | undefined)?.generation !== generation) return 0;
  let applied = 0;
  // The last line is empty, or a change cut short by a crash: not applied.
  for (const line of lines.slice(1, -1)) {
    const change = changeSchema.safeParse(safeJson(line));
    if (!change.success) {
      warn(`The plan's memory log ${logPath} has an unreadable line; ralph keeps the changes before it`);
      break;
    }
    applyChange(open, change.data);
    applied++;
  }
  return applied;
}

/** Applies `change` to `open` in place. */
export function applyChange(open: LedgerPlanItem[], change: LedgerPlanChange): void {
  for (const [at, text] of change.set) if (open[at]) open[at] = { ...open[at], text };
  const dropped = [...new Set(change.drop)].filter((at) => at < open.length).sort((a, b) => b - a);
  for (const at of dropped) open.splice(at, 1);
  open.push(...change.add);
}

/** What this process wrote last for each memory file: the generation, the files' identities, the log's size. */
interface Written {
  generation: string;
  memory: FileId;
  log: FileId;
  memoryBytes: number;
  logBytes: number;
}

interface FileId {
  dev: number;
  ino: number;
}

const written = new Map<string, Written>();

/** The log is folded into the memory once it is this share of the memory's size, or this many bytes if more. */
const FOLD_SHARE = 1 / 8;
const FOLD_MIN_BYTES = 16 * 1024;

/**
 * Writes the plan's memory beside the ledger whole, atomically (mode 600, its folder 700), and a
 * new, empty log for it: one item a line, no indentation and no normalised text.
 */
export function saveLedgerPlan(ledgerFile: string, projectDir: string, open: readonly LedgerPlanItem[]): void {
  mkdirSync(dirname(ledgerFile), { recursive: true, mode: 0o700 });
  writeMemoryFile(planMemoryPath(ledgerFile), realPathOf(projectDir), open);
}

function writeMemoryFile(path: string, project: string, open: readonly LedgerPlanItem[]): void {
  const generation = newGeneration();
  const items = open.map(({ text, position }) => JSON.stringify({ text, position }));
  const head = `{"version":1,"project":${JSON.stringify(project)},"generation":"${generation}","open":[`;
  const body = `${head}${items.length ? `\n${items.join(',\n')}\n` : ''}]}\n`;
  writeFileAtomic(path, body, { mode: 0o600, evenIfSame: true });
  const logHead = `${JSON.stringify({ generation })}\n`;
  writeFileAtomic(planMemoryLogPath(path), logHead, { mode: 0o600, evenIfSame: true });
  const memory = idOf(path);
  const log = idOf(planMemoryLogPath(path));
  if (memory && log) written.set(path, { generation, memory, log, memoryBytes: Buffer.byteLength(body), logBytes: logHead.length });
  else written.delete(path);
}

/**
 * Records `change` in the log beside the ledger; the memory is written whole instead (`whole`:
 * the items after the change) when this process did not write the files there now, or the log
 * has grown past its share.
 */
export function saveLedgerPlanChange(ledgerFile: string, projectDir: string, change: LedgerPlanChange, whole: () => readonly LedgerPlanItem[]): void {
  const path = planMemoryPath(ledgerFile);
  const last = written.get(path);
  const { drop, set, add } = change;
  const line = `${JSON.stringify({ ...(drop.length ? { drop } : {}), ...(set.length ? { set } : {}), ...(add.length ? { add } : {}) })}\n`;
  const logPath = planMemoryLogPath(path);
  const fold = last === undefined || last.logBytes + line.length > Math.max(FOLD_MIN_BYTES, last.memoryBytes * FOLD_SHARE);
  if (fold || !sameFile(idOf(path), last.memory) || !appendTo(logPath, last.log, line)) {
    saveLedgerPlan(ledgerFile, projectDir, whole());
    return;
  }
  last.logBytes += Buffer.byteLength(line);
}

/** Appends `line` to the log when the path still names the file `id`, in one write; false when it does not. */
function appendTo(logPath: string, id: FileId, line: string): boolean {
  if (!sameFile(idOf(logPath), id)) return false;
  let fd: number;
  try {
    fd = openNoFollow(logPath, constants.O_WRONLY | constants.O_APPEND);
  } catch {
    // Gone, or no longer a file ralph may write through: the memory is written whole instead.
    return false;
  }
  try {
    // The file opened is the one the path named a moment ago: checked on the descriptor.
    if (!sameFile(fstatSync(fd), id)) return false;
    const bytes = Buffer.from(line);
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    return true;
  } finally {
    closeSync(fd);
  }
}

function idOf(path: string): FileId | undefined {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  return stats?.isFile() ? { dev: stats.dev, ino: stats.ino } : undefined;
}

function sameFile(a: FileId | undefined, b: FileId): boolean {
  return a !== undefined && a.dev === b.dev && a.ino === b.ino;
}

/** A name for one writing of the memory: only the log written with it is read with it. */
function newGeneration(): string {
  const part = () =>
    Math.floor(Math.random() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, '0');
  return `${part()}${part()}${part()}`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
