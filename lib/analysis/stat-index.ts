// The content snapshot's private git index: the last snapshot's files with the stat data they
// were hashed at, written by ralph into its own folder, so that `git diff-files` — git's stat
// comparison, in C and on threads — names the few files whose stat changed, where ralph would
// otherwise lstat every file itself. git only compares: it reads no file's content and runs no
// filter, because
//
// - the index file's mtime is set to 0, so git takes no entry for "racily clean" (a racily clean
//   entry is the one case where diff-files reads the file, through the clean filter, to compare);
// - it holds only regular files and symlinks, no gitlink (a gitlink would make git look into the
//   submodule), no intent-to-add or assume-unchanged flag and no extension (so no fsmonitor data);
// - the call forces the settings that decide what git compares and whether fsmonitor runs.
//
// An entry ralph cannot vouch for (not hashed yet, or changed in the second it was hashed: git
// compares whole seconds) is written with zero stat data, which git always reports as changed.
// The index is a scratch file: written whole before each call, never read by ralph.

import { closeSync, constants, fstatSync, futimesSync, lstatSync, lutimesSync, openSync, writeSync } from 'node:fs';
import type { ProcessRunner } from '../platform/process.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { runGitCommand } from '../platform/git-operations.js';

/** The stat data an entry holds (what lstat gave when the file was hashed). */
export interface IndexedStat {
  ctimeMs: number;
  mtimeMs: number;
  dev: number;
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  size: number;
}

/** What an entry is set from: stat data, or what gives it when asked (the stat cache keeps it as text). */
export type StatSource = IndexedStat | { statData(): IndexedStat };

/** The index for one file list, kept to be patched rather than rebuilt (also for later lists). */
export interface StatIndex {
  buffer: Buffer;
  /** The paths it was built for (project-relative, its own copy); an entry's position is its path's. */
  paths: string[];
  /** Where each path's entry starts in the buffer; -1: the path has no entry. */
  offsets: Int32Array;
  /** The paths with an entry, in the index's order (git's: by bytes). */
  order: Uint32Array;
  /** The index's names (prefix + path), aligned with the paths. */
  names: string[];
  /** What each name begins with (the project's path in the repository). */
  prefix: string;
  /** What each entry was set from (undefined: zero stat data). */
  held: Array<StatSource | undefined>;
  hashLength: number;
  /** The order of two names: git's (by bytes). */
  compare: (a: string, b: string) => number;
  /** Where the entries changed since the index was last written start. */
  dirty: Set<number>;
  /** The file as ralph last wrote it (its device, inode and ctime); undefined: not written yet. */
  written?: { dev: number; ino: number; ctimeMs: number };
}

const HEADER = 12;
// ctime, mtime (seconds and nanoseconds), dev, ino, mode, uid, gid, size: ten 32-bit fields.
const STAT_BYTES = 40;
const EMPTY_BLOB: Record<number, string> = {
  20: 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391',
  32: '473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813',
};

// What git compares and what it runs, whatever the repository's configuration says: the stat
// fields ralph's own cache compares (ctime, inode, the executable bit, symlinks), on threads,
// and no fsmonitor (it would vouch for files on its own and runs a program).
const DIFF_FILES = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.checkStat=default',
  '-c',
  'core.trustctime=true',
  '-c',
  'core.fileMode=true',
  '-c',
  'core.symlinks=true',
  '-c',
  'core.preloadIndex=true',
  'diff-files',
  '-z',
  '--name-only',
  '--ignore-submodules=all',
];

/** Whether git's whole-second comparison can be trusted with this stat: nothing of it is as recent as `stamp`'s second. */
export function indexable(st: IndexedStat & { isFile(): boolean; isSymbolicLink(): boolean }, stamp: number): boolean {
  const second = Math.floor(stamp / 1000);
  return (st.isFile() || st.isSymbolicLink()) && Math.floor(st.mtimeMs / 1000) < second && Math.floor(st.ctimeMs / 1000) < second;
}

/**
 * An index for `paths` (project-relative), each entry's name `prefix` + path, every entry zeroed.
 * `outside(path)`: a path git must not be asked about (a file of a nested repository) gets no entry.
 */
export function buildStatIndex(paths: string[], prefix: string, hashLength: number, outside: (path: string) => boolean = () => false): StatIndex {
  const names = prefix === '' ? paths.slice() : paths.map((path) => prefix + path);
  // A nested repository listed as `dir/` is no file: it gets no entry, nor do the files in it.
  const included: number[] = [];
  for (let i = 0; i < names.length; i++) if (!names[i]!.endsWith('/') && !outside(paths[i]!)) included.push(i);
  // Below U+D800, UTF-16 units order as UTF-8 bytes do: the plain comparison is enough.
  const compare = names.some((name) => /[\ud800-\uffff]/.test(name)) ? compareBytes : (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const order = Uint32Array.from(included.sort((a, b) => compare(names[a]!, names[b]!)));
  const offsets = new Int32Array(names.length).fill(-1);
  const lengths = new Uint32Array(names.length);
  let size = HEADER;
  for (const i of order) {
    lengths[i] = Buffer.byteLength(names[i]!);
    offsets[i] = size;
    size += entrySize(lengths[i]!, hashLength);
  }
  // The trailer is the null hash: git reads it as "not hashed" (index.skipHash) and checks no sum on read.
  const buffer = Buffer.alloc(size + hashLength);
  buffer.write('DIRC', 0, 'latin1');
  buffer.writeUInt32BE(2, 4);
  buffer.writeUInt32BE(order.length, 8);
  for (const i of order) {
    const at = offsets[i]!;
    buffer.writeUInt32BE(0o100644, at + 24);
    buffer.writeUInt16BE(Math.min(lengths[i]!, 0xfff), at + STAT_BYTES + hashLength);
    buffer.write(names[i]!, at + STAT_BYTES + hashLength + 2, 'utf8');
  }
  // Its own copy of the paths (the names, without a prefix): a list's array of paths is handed on to the next list, changed in place.
  const own = prefix === '' ? names : paths.slice();
  return { buffer, paths: own, prefix, offsets, order, names, held: new Array(names.length), hashLength, compare, dirty: new Set() };
}

/** Sets path `i`'s entry to the stat data of `source` (a file or symlink ralph hashed), or to zeros when undefined. */
export function setIndexEntry(index: StatIndex, i: number, source: StatSource | undefined): void {
  const at = index.offsets[i]!;
  if (at < 0 || index.held[i] === source) return;
  index.held[i] = source;
  const stat = source && 'statData' in source ? source.statData() : source;
  index.dirty.add(at);
  const { buffer, hashLength } = index;
  buffer.fill(0, at, at + STAT_BYTES + hashLength);
  if (stat === undefined) {
    buffer.writeUInt32BE(0o100644, at + 24);
    return;
  }
  // git keeps each field's low 32 bits.
  const put = (value: number, k: number): void => void buffer.writeUInt32BE(value % 2 ** 32, at + 4 * k);
  const ctime = Math.floor(stat.ctimeMs / 1000);
  const mtime = Math.floor(stat.mtimeMs / 1000);
  put(ctime, 0);
  put(nanos(stat.ctimeMs - ctime * 1000), 1);
  put(mtime, 2);
  put(nanos(stat.mtimeMs - mtime * 1000), 3);
  put(stat.dev, 4);
  put(stat.ino, 5);
  put(gitMode(stat.mode), 6);
  put(stat.uid, 7);
  put(stat.gid, 8);
  put(stat.size, 9);
  // An empty file matches only with the empty blob's id (git's test for a "smudged" entry).
  if (stat.size === 0 && (stat.mode & constants.S_IFMT) === constants.S_IFREG) buffer.write(EMPTY_BLOB[hashLength]!, at + STAT_BYTES, 'hex');
}

/**
 * Brings the index's entries for a list's files to their cached stat data (zeros where ralph
 * cannot vouch for a file) and returns which of the files the index vouches for. `since`: the
 * list's files synced before, but those at `positions` (changed since, or newly listed), with
 * what was vouched for then (updated in place); without it, every file is synced.
 */
export function syncStatIndex(
  index: StatIndex,
  entryOf: Int32Array,
  cache: ReadonlyArray<(StatSource & { indexed: boolean }) | undefined>,
  since?: { vouched: Uint8Array; positions: readonly number[] },
): Uint8Array {
  const vouched = since ? since.vouched : new Uint8Array(entryOf.length);
  const sync = (i: number): void => {
    const hit = cache[i];
    const entry = entryOf[i]!;
    vouched[i] = entry >= 0 && hit?.indexed ? 1 : 0;
    if (entry >= 0) setIndexEntry(index, entry, hit?.indexed ? hit : undefined);
  };
  if (since) for (const i of since.positions) sync(i);
  else for (let i = 0; i < entryOf.length; i++) sync(i);
  return vouched;
}

/**
 * Writes the index to `path`, its mtime set to 0 so git takes no entry for racily clean. Where
 * the file is still the one ralph wrote last (same inode, ctime unchanged: nothing wrote to it
 * since), only the entries changed since are written into it, through a descriptor opened
 * without following a link; otherwise the whole index is written atomically (a temp file renamed
 * over it: a link planted there is replaced, never written through).
 */
export function writeStatIndex(path: string, index: StatIndex): void {
  if (index.written && index.dirty.size < index.order.length / 4 && patchInPlace(path, index, index.written)) {
    index.dirty.clear();
    return;
  }
  writeFileAtomic(path, index.buffer, { mode: 0o600, evenIfSame: true });
  lutimesSync(path, 0, 0);
  const st = lstatSync(path);
  index.written = st.isFile() ? { dev: st.dev, ino: st.ino, ctimeMs: st.ctimeMs } : undefined;
  index.dirty.clear();
}

function patchInPlace(path: string, index: StatIndex, written: NonNullable<StatIndex['written']>): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.dev !== written.dev || st.ino !== written.ino || st.ctimeMs !== written.ctimeMs || st.size !== index.buffer.length) return false;
    const length = STAT_BYTES + index.hashLength;
    for (const at of index.dirty) writeSync(fd, index.buffer, at, length, at);
    futimesSync(fd, 0, 0);
    written.ctimeMs = fstatSync(fd).ctimeMs;
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/**
 * The paths `git diff-files` names against the index at `indexFile` (changed or gone), as
 * indexes into the index's paths; null when git failed or named a path the index does not hold.
 */
export async function changedByGit(
  index: StatIndex,
  indexFile: string,
  run: { processRunner: ProcessRunner; cwd: string; env: NodeJS.ProcessEnv },
): Promise<number[] | null> {
  // It reads no content (see above): the hardening need not look for drivers added since the run started.
  const env = { ...run.env, GIT_INDEX_FILE: indexFile, GIT_OPTIONAL_LOCKS: '0' };
  const result = await runGitCommand(run.processRunner, DIFF_FILES, { cwd: run.cwd, env, gitReadsNoContent: true });
  if (result.spawnError || result.code !== 0) return null;
  const changed: number[] = [];
  for (const name of result.stdout.split('\0')) {
    if (name === '') continue;
    const i = findName(index, name);
    if (i < 0) return null;
    changed.push(i);
  }
  return changed;
}

function findName(index: StatIndex, name: string): number {
  let low = 0;
  let high = index.order.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const i = index.order[mid]!;
    const c = index.compare(index.names[i]!, name);
    if (c === 0) return i;
    if (c < 0) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

/** The index's paths of the files right in a folder (`start`: its name and `/`), not in its subfolders. */
export function filesIn(index: StatIndex, start: string): number[] {
  const out: number[] = [];
  for (let k = lowerBound(index, start); k < index.order.length;) {
    const name = index.names[index.order[k]!]!;
    if (!name.startsWith(start)) break;
    const slash = name.indexOf('/', start.length);
    if (slash === -1) {
      out.push(index.order[k]!);
      k++;
    } else {
      // A subfolder's entries sort together, before the name with `0` (the byte after `/`) in its place.
      k = lowerBound(index, `${name.slice(0, slash)}0`);
    }
  }
  return out;
}

/** The first place in the index's order whose name is not before `name`. */
function lowerBound(index: StatIndex, name: string): number {
  let low = 0;
  let high = index.order.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (index.compare(index.names[index.order[mid]!]!, name) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Orders two names as their UTF-8 bytes would (git's order): by code point, not UTF-16 unit. */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const x = a.charCodeAt(k);
    const y = b.charCodeAt(k);
    if (x === y) continue;
    // A surrogate (half of a code point above U+FFFF) sorts after U+E000–U+FFFF in UTF-8.
    if (x >= 0xd800 && y >= 0xd800 && isSurrogate(x) !== isSurrogate(y)) return isSurrogate(x) ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdfff;
}

/** Each path's position in the index, for looking up many of them (made for the call, not kept: it would be as large as the list). */
export function indexPositions(index: StatIndex): Map<string, number> {
  return new Map(index.paths.map((path, i) => [path, i]));
}

/** The position of the path's entry in the index (found in its order); -1: no entry. */
export function entryPosition(index: StatIndex, path: string): number {
  return findName(index, index.prefix + path);
}

// The sub-second part of a time, as git's nanoseconds (only a git built with USE_NSEC compares them).
function nanos(ms: number): number {
  return Math.min(999_999_999, Math.max(0, Math.round(ms * 1e6)));
}

function entrySize(nameBytes: number, hashLength: number): number {
  // Name and 1 to 8 NULs, the whole entry a multiple of 8 bytes (index format v2).
  return (STAT_BYTES + hashLength + 2 + nameBytes + 8) & ~7;
}

function gitMode(mode: number): number {
  if ((mode & constants.S_IFMT) === constants.S_IFLNK) return 0o120000;
  return mode & 0o100 ? 0o100755 : 0o100644;
}
