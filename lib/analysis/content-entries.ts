// A content snapshot's entries: each listed file as `<kind> <sha1>`, read from disk here (never
// through git, so no filter runs), the content id over a list's entries, and the paths whose entry
// differs between two snapshots (lib/analysis/content-snapshot.ts takes and keeps them).

import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, readlinkSync, readSync, type Stats } from 'node:fs';
import type { StatIndex } from './stat-index.js';

const CHUNK = 1 << 20;

/** One file list as git gave it, with what is derived from it once rather than every loop. */
export interface Listing {
  /** git's output as it came (compared as it comes: an unchanged list is not decoded or parsed again). */
  raw: Buffer;
  paths: string[];
  fulls: string[];
  /** Indexes of `paths` in sorted order, made when first needed. */
  order?: Uint32Array;
  /** Where its paths are in the private index, made when first needed. */
  slots?: Slots;
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
}

/** The filesystem calls the snapshot makes (tests count them). */
export interface SnapshotFs {
  lstatSync(path: string, options: { throwIfNoEntry: false }): Stats | undefined;
  openSync(path: string, flags: number): number;
  readSync(fd: number, buffer: Buffer, offset: number, length: number, position: null): number;
  closeSync(fd: number): void;
  readlinkSync(path: string): string;
}

export const nodeFs: SnapshotFs = { lstatSync, openSync, readSync, closeSync, readlinkSync };

/** `<kind> <sha1>` of one file as it is on disk; undefined for what is no file (a folder, a fifo). */
export async function hashEntry(fs: SnapshotFs, full: string, st: Stats): Promise<string | undefined> {
  if (st.isSymbolicLink()) {
    try {
      return `link ${sha1(fs.readlinkSync(full))}`;
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
  } catch {
    return undefined;
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
    return `${kind} ${hash.digest('hex')}`;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

export function contentId({ listing, entries }: Entries): string {
  const order = (listing.order ??= sortedOrder(listing.paths));
  const hash = createHash('sha1');
  let text = '';
  for (const i of order) {
    const entry = entries[i];
    if (entry === undefined) continue;
    text += `${listing.paths[i]}\0${entry}\n`;
    if (text.length > 1 << 16) {
      hash.update(text);
      text = '';
    }
  }
  return hash.update(text).digest('hex');
}

function sortedOrder(paths: string[]): Uint32Array {
  const order = Uint32Array.from(paths.keys());
  return order.sort((a, b) => (paths[a]! < paths[b]! ? -1 : paths[a]! > paths[b]! ? 1 : 0));
}

/** Paths whose entry differs between two snapshots, sorted. */
export function diffEntries(a: Entries, b: Entries): string[] {
  const changed = new Set<string>();
  if (a.listing === b.listing) {
    for (let i = 0; i < a.entries.length; i++) if (a.entries[i] !== b.entries[i]) changed.add(a.listing.paths[i]!);
  } else {
    const mapOf = ({ listing, entries }: Entries): Map<string, string> => {
      const map = new Map<string, string>();
      entries.forEach((entry, i) => entry !== undefined && map.set(listing.paths[i]!, entry));
      return map;
    };
    const x = mapOf(a);
    const y = mapOf(b);
    for (const [path, entry] of x) if (y.get(path) !== entry) changed.add(path);
    for (const path of y.keys()) if (!x.has(path)) changed.add(path);
  }
  return [...changed].sort();
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
