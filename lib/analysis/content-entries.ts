// A content snapshot's entries: each listed file as `<kind> <sha1>`, read from disk here (never
// through git, so no filter runs), the content id over a list's entries, and the paths whose entry
// differs between two snapshots (lib/analysis/content-snapshot.ts takes and keeps them).

import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, readlinkSync, readSync, type Stats } from 'node:fs';
import type { StatIndex } from './stat-index.js';

const CHUNK = 1 << 20;
// Paths per block of the content id.
const BLOCK = 1024;

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
  /** The nested repositories (`vendor/lib/`) whose files ralph listed itself, after git's. */
  nested?: string[];
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
  /** The hash of each block of the sorted list, set by contentId. */
  blocks?: string[];
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

/**
 * The id over a list's entries: a hash of the hashes of its blocks (BLOCK paths each, in sorted
 * order). Given the previous snapshot of the same list, a block none of whose entries changed
 * keeps its hash, so a loop that changed a few files hashes again a few blocks, not the list.
 */
export function contentId(now: Entries, previous?: Entries): string {
  const { listing, entries } = now;
  const order = (listing.order ??= sortedOrder(listing.paths));
  const kept = previous?.listing === listing ? previous : undefined;
  const blocks: string[] = [];
  // An empty list is one empty block.
  const count = Math.max(1, Math.ceil(order.length / BLOCK));
  for (let block = 0; block < count; block++) {
    const start = block * BLOCK;
    const end = Math.min(order.length, start + BLOCK);
    if (kept?.blocks?.[block] !== undefined && sameEntries(order, start, end, kept.entries, entries)) {
      blocks.push(kept.blocks[block]!);
      continue;
    }
    let text = '';
    for (let k = start; k < end; k++) {
      const entry = entries[order[k]!];
      if (entry !== undefined) text += `${listing.paths[order[k]!]}\0${entry}\n`;
    }
    blocks.push(sha1(text));
  }
  now.blocks = blocks;
  return sha1(blocks.join('\n'));
}

function sameEntries(order: Uint32Array, start: number, end: number, a: Entries['entries'], b: Entries['entries']): boolean {
  for (let k = start; k < end; k++) if (a[order[k]!] !== b[order[k]!]) return false;
  return true;
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
