// Atomic state writes: a reader (or the next run after `kill -9`) sees either the old file or
// the new one, never a torn one. A write of the bytes (and mode) already on disk is skipped:
// the file would be the same, and each replace-by-rename costs a flush on ext4. Also the
// append-only JSONL writer used for metrics.
// The crash test transpiles this file (and its local imports) on its own: keep imports few.

import {
  appendFileSync,
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { isProcessAlive } from './process-alive.js';

// node:crypto is loaded at the first write, not at import: the read-only commands import this
// module and would pay ~10 ms of start-up for nothing (start-up budgets, DESIGN.md §6).
const requireBuiltin = createRequire(import.meta.url);
const randomBytes = (size: number) => (requireBuiltin('node:crypto') as typeof import('node:crypto')).randomBytes(size);

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
}

const TEMP_MARKER = '.tmp-';

/** `.<name>.tmp-<pid>-<hex>`: hidden, and plainly a temp file to anyone listing `.ralph/`. */
export function tempFileName(target: string, pid = process.pid): string {
  return `.${basename(target)}${TEMP_MARKER}${pid}-${randomBytes(4).toString('hex')}`;
}

export function writeFileAtomic(path: string, data: string | Uint8Array, options: WriteAtomicOptions = {}): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  removeStaleTempFiles(path);
  // A durable write also syncs what may still sit in the page cache, so it always goes through.
  if (options.durable !== true && holdsAlready(path, bytes, options.mode)) return;
  const mode = options.mode ?? existingMode(path);
  const tmp = join(dir, tempFileName(path));
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', mode ?? 0o644);
    if (mode !== undefined) fchmodSync(fd, mode);
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    if (options.durable === true) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    unlinkQuietly(tmp);
    throw error;
  }
  if (options.durable === true) syncDirectory(dir);
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
  mkdirSync(dirname(path), { recursive: true });
  const lines = values.map((value) => `${JSON.stringify(value)}\n`).join('');
  appendFileSync(path, endsWithNewline(path) ? lines : `\n${lines}`);
}

function endsWithNewline(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return true; // missing file: nothing to separate from
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

/**
 * The path is a regular file (not a symlink, which the rename would replace) with exactly these
 * bytes and, when one is asked for, this mode. Only a file of the same size is read.
 */
function holdsAlready(path: string, bytes: Uint8Array, mode: number | undefined): boolean {
  try {
    const st = lstatSync(path);
    if (!st.isFile() || st.size !== bytes.length) return false;
    if (mode !== undefined && (st.mode & 0o777) !== mode) return false;
    return readFileSync(path).equals(bytes);
  } catch {
    return false;
  }
}

function existingMode(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
}

// Temp files of writers that were killed mid-write; left alone if their process still runs,
// because it may be writing right now.
function removeStaleTempFiles(path: string): void {
  const dir = dirname(path);
  const prefix = `.${basename(path)}${TEMP_MARKER}`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (!Number.isInteger(pid) || pid === process.pid || isProcessAlive(pid)) continue;
    unlinkQuietly(join(dir, name));
  }
}

// Best effort: makes the rename durable across power loss; some filesystems refuse it.
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // not supported here; the rename is still atomic
  } finally {
    if (fd !== undefined) closeQuietly(fd);
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
