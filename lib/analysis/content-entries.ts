// A content snapshot's entries: each listed file as `<kind> <sha1>`, read from disk here (never
// through git, so no filter runs), and the content id over a list's entries: the sum (modulo
// 2^256) of a SHA-256 of each path with its entry, so that the id does not depend on the order of
// the list and a loop that changed a few files updates it with a few hashes, whatever the tree
// holds (lib/analysis/content-snapshot.ts takes the snapshots and keeps what changed between them).

import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, readdirSync, readlinkSync, readSync, type Dirent, type Stats } from 'node:fs';
import type { StatIndex } from './stat-index.js';

const CHUNK = 1 << 20;
const ID_BITS = 256n;
const ID_MASK = (1n << ID_BITS) - 1n;

/** One file list as git gave it, with what is derived from it once rather than every loop. */
export interface Listing {
  /** git's output as it came (compared as it comes: an unchanged list is not decoded or parsed again). */
  raw: Buffer;
  paths: string[];
  /** The project's path and a separator: a file's path on disk is this and its path in the list (fullPath). */
  prefix: string;
  /** Where each path's bytes begin in `raw` (listing-delta.ts makes the next list from this one). */
  starts: Int32Array;
  /** Where its paths are in the private index, made when first needed. */
  slots?: Slots;
  /** The nested repositories (`vendor/lib/`) whose files ralph listed itself, after git's. */
  nested?: string[];
}

/** The path on disk of the listing's file `i`. */
export function fullPath(listing: Listing, i: number): string {
  return listing.prefix + listing.paths[i]!;
}

/** The path is a file of one of the listing's nested repositories (git is never asked about it). */
export function inNested(listing: Listing, path: string): boolean {
  return listing.nested !== undefined && listing.nested.length > 0 && listing.nested.some((dir) => path.startsWith(dir));
}

/** A list's paths against a private index (built for it or for an earlier list). */
export interface Slots {
  index: StatIndex;
  /** Each path's entry in the index; -1: none (a path listed since it was built). */
  entryOf: Int32Array;
  /** Each entry's path in the list; -1: none (no longer listed). */
  pathOf: Int32Array;
  /** How many of the list's files have no entry: they are stat'ed here. */
  missing: number;
}

/** A snapshot's entries, aligned with its listing's paths (undefined: no file there). */
export interface Entries {
  listing: Listing;
  entries: Array<string | undefined>;
  /** The sum of entryPart over the defined entries (modulo 2^256): the id's source. */
  sum: bigint;
}

/** The filesystem calls the snapshot makes (tests count them). */
export interface SnapshotFs {
  lstatSync(path: string, options: { throwIfNoEntry: false }): Stats | undefined;
  openSync(path: string, flags: number): number;
  readSync(fd: number, buffer: Buffer, offset: number, length: number, position: null): number;
  closeSync(fd: number): void;
  readlinkSync(path: string): string;
  readdirSync(path: string, options: { withFileTypes: true }): Dirent[];
}

export const nodeFs: SnapshotFs = { lstatSync, openSync, readSync, closeSync, readlinkSync, readdirSync };

/** `<kind> <sha1>` of one file as it is on disk (`unreadable <kind> <stat>` for one ralph may not read); undefined for what is no file (a folder, a fifo). */
export async function hashEntry(fs: SnapshotFs, full: string, st: Stats): Promise<string | undefined> {
  if (st.isSymbolicLink()) {
    try {
      return ['link', sha1(fs.readlinkSync(full))].join(' ');
    } catch {
      return undefined;
    }
  }
  // A submodule or a nested repository is listed as a folder: its content is its own.
  if (st.isDirectory()) return 'folder';
  // Never opened: a fifo would block, a device could be anything.
  if (!st.isFile()) return undefined;
  const kind = st.mode & 0o100 ? 'exec' : 'file';
  let fd: number;
  try {
    fd = fs.openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    // A file closed to ralph (not root: the agent, the same user, took its read permission) is
    // known by its stat: any change to its bytes changes its ctime, which no one but root can set.
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EACCES' || code === 'EPERM' ? ['unreadable', kind, [st.ino, st.size, st.mtimeMs, st.ctimeMs].join(':')].join(' ') : undefined;
  }
  try {
    const hash = createHash('sha1');
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, st.size)));
    for (let chunks = 0; ; chunks++) {
      const n = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
      // A big file is read in turns with the event loop, so a stop signal is still handled.
      if (chunks % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
    }
    // Joined: one flat string kept per file, not a pair of strings.
    return [kind, hash.digest('hex')].join(' ');
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** One file's part of the content id. */
export function entryPart(path: string, entry: string): bigint {
  return BigInt(`0x${createHash('sha256').update(`${path}\0${entry}`).digest('hex')}`);
}

/** The sum of the parts of every defined entry of a list. */
export function entriesSum(paths: string[], entries: Array<string | undefined>): bigint {
  let sum = 0n;
  for (let i = 0; i < paths.length; i++) if (entries[i] !== undefined) sum += entryPart(paths[i]!, entries[i]!);
  return sum & ID_MASK;
}

/** A sum brought back into its 256 bits. */
export function wrapSum(sum: bigint): bigint {
  return sum & ID_MASK;
}

/** The content id of a sum of parts. */
export function contentId(sum: bigint): string {
  return sha1(`content ${sum.toString(16)}`);
}

/** What changed between two snapshots: each path with its entry before and after, and the new sum. */
export interface EntriesDelta {
  sum: bigint;
  changes: Map<string, [string | undefined, string | undefined]>;
}

/** The previous snapshot as the new list sees it. */
export interface EntriesBefore {
  /** The entry the new list's path i had (undefined: not listed, or no file). */
  at(i: number): string | undefined;
  /** The previous list's paths no longer listed, each with its entry. */
  gone: ReadonlyArray<readonly [string, string | undefined]>;
}

/** `EntriesBefore` of a snapshot whose entries are as it left them: `oldPlace(i)`, where path i was; `gone`, the paths no longer listed with their places. */
export function entriesBefore(previous: Entries, oldPlace: (i: number) => number | undefined, gone: ReadonlyArray<readonly [string, number]>): EntriesBefore {
  return {
    at: (i) => {
      const at = oldPlace(i);
      return at === undefined ? undefined : previous.entries[at];
    },
    gone: gone.map(([path, at]) => [path, previous.entries[at]] as const),
  };
}

/**
 * The entries of `listing` against the previous snapshot's (its sum, and what each path had
 * before). `positions`: the only places of `listing` whose entry may differ (all when not given).
 */
export function changedSince(
  previousSum: bigint,
  listing: Listing,
  entries: Array<string | undefined>,
  before: EntriesBefore,
  positions?: readonly number[],
): EntriesDelta {
  let sum = previousSum;
  const changes = new Map<string, [string | undefined, string | undefined]>();
  const note = (path: string, was: string | undefined, now: string | undefined): void => {
    if (was === now) return;
    changes.set(path, [was, now]);
    if (was !== undefined) sum -= entryPart(path, was);
    if (now !== undefined) sum += entryPart(path, now);
  };
  const check = (i: number): void => note(listing.paths[i]!, before.at(i), entries[i]);
  if (positions) for (const i of positions) check(i);
  else for (let i = 0; i < listing.paths.length; i++) check(i);
  for (const [path, was] of before.gone) note(path, was, undefined);
  return { sum: wrapSum(sum), changes };
}

/** Paths whose entry differs between two of the kept snapshots (by id), sorted; none when either is no longer kept. */
export function changedBetween(history: ReadonlyArray<{ id: string; changes: EntriesDelta['changes'] }>, fromId: string, toId: string): string[] {
  const lastOf = (id: string): number => history.map((h) => h.id).lastIndexOf(id);
  const i = lastOf(fromId);
  const j = lastOf(toId);
  if (i < 0 || j < 0) return [];
  const first = new Map<string, string | undefined>();
  const latest = new Map<string, string | undefined>();
  for (let k = Math.min(i, j) + 1; k <= Math.max(i, j); k++) {
    for (const [path, [before, after]] of history[k]!.changes) {
      if (!first.has(path)) first.set(path, before);
      latest.set(path, after);
    }
  }
  return [...latest.keys()].filter((path) => first.get(path) !== latest.get(path)).sort();
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
