// Atomic state writes: a reader (or the next run after `kill -9`) sees either the old file or
// the new one, never a torn one. A write of the bytes (and mode) already on disk is skipped:
// the file would be the same, and each replace-by-rename costs a flush on ext4. The file is
// read back for that only when the bytes are the ones this process last wrote there: a view
// that changed (a timestamp, a counter) is replaced without reading it first. Each write is
// kept to few system calls (the loop makes ~18 a loop): the folder is opened once a process
// (no link followed, made only when missing, kept while its path still names it) and every
// name is taken in it, one lstat serves both the same-bytes check and the mode to keep, and
// temp files of dead writers are looked for once per file and process.
// Also the append-only JSONL writer used for metrics.
// The crash test transpiles this file (and its local imports) on its own: keep imports few.

import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isProcessAlive } from './process-alive.js';
import { folderInPlaceError, namedByPath, openInDirectory, ownDirectory, type OwnDirectory } from './no-follow.js';

export interface WriteAtomicOptions {
  /** File mode, applied exactly (not masked by umask). Default: keep the old file's mode. */
  mode?: number;
  /**
   * Also fsync the file and its directory, so the write survives power loss (default false).
   * Without it the write is still atomic — a killed ralph never leaves a partial file, which is
   * what rename guarantees — and skips the fsync cost (7–13 ms per write measured on ordinary
   * disks; about twenty state writes happen per loop, against a 30 ms per-loop budget).
   */
  durable?: boolean;
  /**
   * Write without first reading the file back to compare (default false): for a large file that
   * mostly differs, the read costs more than the write it might save.
   */
  evenIfSame?: boolean;
}

const TEMP_MARKER = '.tmp-';
const TEMP_NAME_TRIES = 8;

/** Targets whose directory was already swept of dead writers' temp files by this process. */
const swept = new Set<string>();

/** Files this process has replaced so far (each a create and a rename): what a loop's writes cost. */
let replaced = 0;

/** How many files writeFileAtomic has replaced in this process (the bench and tests count a loop's). */
export function atomicWriteCount(): number {
  return replaced;
}

/** Files read back to compare with the bytes to write. */
let readBack = 0;

/** How many files writeFileAtomic has read back to compare with what it was asked to write. */
export function sameBytesReadCount(): number {
  return readBack;
}

// The bytes this process last wrote to each of its recent small files (newest last), in memory.
const lastWritten = new Map<string, Buffer>();
const REMEMBERED_FILES = 64;
const REMEMBERED_BYTES = 16 * 1024;

/** The bytes differ from what this process last wrote to `path`: the file cannot be worth reading back for them. */
function differsFromLastWritten(path: string, bytes: Uint8Array): boolean {
  const last = lastWritten.get(path);
  return last !== undefined && !last.equals(bytes);
}

function rememberWritten(path: string, bytes: Uint8Array | undefined): void {
  lastWritten.delete(path);
  if (bytes === undefined || bytes.length > REMEMBERED_BYTES) return;
  lastWritten.set(path, Buffer.from(bytes));
  if (lastWritten.size > REMEMBERED_FILES) lastWritten.delete(lastWritten.keys().next().value!);
}

/**
 * `.<name>.tmp-<pid>-<hex>`: hidden, and plainly a temp file to anyone listing `.ralph/`. The
 * suffix only has to differ from a leftover of an earlier process with the same pid (the open
 * is exclusive, and the name is never a secret), so Math.random serves, without node:crypto.
 */
export function tempFileName(target: string, pid = process.pid): string {
  const suffix = Math.floor(Math.random() * 0x1_0000_0000)
    .toString(16)
    .padStart(8, '0');
  return `.${basename(target)}${TEMP_MARKER}${pid}-${suffix}`;
}

export function writeFileAtomic(path: string, data: string | Uint8Array, options: WriteAtomicOptions = {}): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  // Every name below is taken in the folder opened here, not through its path: the agent may
  // swap the folder (or one above it, up to `.ralph`) for a link while ralph writes.
  const dir = ownDirectory(dirname(path), true);
  try {
    writeInDirectory(dir, path, bytes, options);
  } catch (error) {
    throw namedByPath(error, dir, dirname(path));
  }
}

function writeInDirectory(dir: OwnDirectory, path: string, bytes: Uint8Array, options: WriteAtomicOptions): void {
  const target = join(dir.at, basename(path));
  if (!swept.has(path)) {
    removeStaleTempFilesIn(dir.at, basename(path));
    swept.add(path);
  }
  const existing = lstatQuietly(target);
  // A durable write also syncs what may still sit in the page cache, so it always goes through.
  const compare = options.durable !== true && options.evenIfSame !== true && !differsFromLastWritten(path, bytes);
  if (compare && holdsAlready(target, existing, bytes, options.mode)) {
    rememberWritten(path, bytes);
    return;
  }
  const mode = options.mode ?? existingMode(target, existing);
  // The rename replaces a link at the target itself; the temp file's open follows none.
  const { tmp, fd: opened } = openTempFile(dir, path, mode ?? 0o644);
  let fd: number | undefined = opened;
  try {
    if (mode !== undefined) fchmodSync(fd, mode);
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    if (options.durable === true) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, target);
    replaced++;
    rememberWritten(path, bytes);
  } catch (error) {
    rememberWritten(path, undefined);
    if (fd !== undefined) closeQuietly(fd);
    unlinkQuietly(tmp);
    throw lstatQuietly(target)?.isDirectory() ? folderInPlaceError(path) : error;
  }
  if (options.durable === true) syncDirectory(dir);
}

/**
 * A new temp file for `path` in `dir`, opened exclusively (O_EXCL follows no link). A name found
 * taken (by chance, or by an agent that guessed it from the names it saw drawn) is left to its
 * owner and another is drawn.
 */
function openTempFile(dir: OwnDirectory, path: string, mode: number): { tmp: string; fd: number } {
  for (let tries = 1; ; tries++) {
    const tmp = join(dir.at, tempFileName(path));
    try {
      return { tmp, fd: openSync(tmp, 'wx', mode) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || tries === TEMP_NAME_TRIES) throw error;
    }
  }
}

/** Pretty JSON with 2-space indent and a trailing newline, as the Bash tool's jq writes it. */
export function writeJsonAtomic(path: string, value: unknown, options: WriteAtomicOptions = {}): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, options);
}

/**
 * Appends one JSON line with a single O_APPEND write, so concurrent or killed writers never
 * interleave half lines. If an earlier (non-atomic) writer left a partial last line, a newline
 * is written first so the new record still starts on its own line.
 */
export function appendJsonl(path: string, value: unknown): void {
  appendJsonLines(path, [value]);
}

/** Several JSON lines in one O_APPEND write (as appendJsonl); nothing when there are none. */
export function appendJsonLines(path: string, values: readonly unknown[]): void {
  if (values.length === 0) return;
  const lines = values.map((value) => `${JSON.stringify(value)}\n`).join('');
  // Opened once, following no link (the agent may have planted one in its place).
  const fd = openInDirectory(ownDirectory(dirname(path), true), path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT);
  try {
    const bytes = Buffer.from(endsWithNewline(fd) ? lines : `\n${lines}`);
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
  } finally {
    closeSync(fd);
  }
}

function endsWithNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

function lstatQuietly(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The path is a regular file (not a symlink, which the rename would replace) with exactly these
 * bytes and, when one is asked for, this mode. Only a file of the same size is read.
 */
function holdsAlready(path: string, st: Stats | undefined, bytes: Uint8Array, mode: number | undefined): boolean {
  if (!st || !st.isFile() || st.size !== bytes.length) return false;
  if (mode !== undefined && (st.mode & 0o777) !== mode) return false;
  readBack++;
  let fd: number;
  try {
    // The name may have been swapped since the lstat: a FIFO must not hang the read, nor a link lead elsewhere.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    return fstatSync(fd).isFile() && readFileSync(fd).equals(bytes);
  } catch {
    return false;
  } finally {
    closeQuietly(fd);
  }
}

/** The mode to keep: the file's own, or (for a symlink) its target's. */
function existingMode(path: string, st: Stats | undefined): number | undefined {
  if (!st) return undefined;
  if (!st.isSymbolicLink()) return st.mode & 0o777;
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
}

/**
 * Removes the temp files (tempFileName's) of writers of `path` that were killed mid-write; one is
 * left alone if its process still runs, because it may be writing right now.
 */
export function removeStaleTempFiles(path: string): void {
  const dir = ownDirectoryQuietly(dirname(path));
  if (dir !== undefined) removeStaleTempFilesIn(dir.at, basename(path));
}

function removeStaleTempFilesIn(dir: string, name: string): void {
  const prefix = `.${name}${TEMP_MARKER}`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const each of names) if (each.startsWith(prefix) && isDeadWritersTemp(each)) unlinkQuietly(join(dir, each));
}

/** tempFileName's names: `.<name>.tmp-<pid>-<8 hex digits>`. */
const TEMP_NAME = /^\..+\.tmp-(\d+)-[0-9a-f]{8}$/;

/**
 * Removes the temp files writers killed mid-write left in `dir` and the folders right under it,
 * whatever file they were writing (removeStaleTempFiles sweeps only the file about to be written,
 * so a file no later run writes would keep its leftover for good). For a process that holds the
 * folder's lock; still, a file of a live process is left alone.
 */
export function removeDeadWritersTempFiles(dir: string): void {
  const top = ownDirectoryQuietly(dir);
  if (top === undefined) return;
  // Each folder's name is used before the next is opened (opening one may close an older one).
  const entries = readdirQuietly(top.at);
  for (const entry of entries) if (!entry.isDirectory()) removeIfDeadWriters(top.at, entry);
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const below = ownDirectoryQuietly(join(dir, entry.name));
    if (below !== undefined) for (const inner of readdirQuietly(below.at)) removeIfDeadWriters(below.at, inner);
  }
}

function removeIfDeadWriters(dir: string, entry: Dirent): void {
  if (entry.isFile() && isDeadWritersTemp(entry.name)) unlinkQuietly(join(dir, entry.name));
}

/** A tempFileName of a writer that is no longer running (never this process's). */
function isDeadWritersTemp(name: string): boolean {
  const pid = Number(TEMP_NAME.exec(name)?.[1]);
  return Number.isInteger(pid) && pid !== process.pid && !isProcessAlive(pid);
}

function ownDirectoryQuietly(dir: string): OwnDirectory | undefined {
  try {
    return ownDirectory(dir, false);
  } catch {
    return undefined;
  }
}

function readdirQuietly(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

// Best effort: makes the rename durable across power loss; some filesystems refuse it.
function syncDirectory(dir: OwnDirectory): void {
  let fd: number | undefined;
  try {
    fd = dir.fd ?? openSync(dir.at, 'r');
    fsyncSync(fd);
  } catch {
    // not supported here; the rename is still atomic
  } finally {
    if (fd !== undefined && fd !== dir.fd) closeQuietly(fd);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
