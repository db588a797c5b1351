// A snapshot's entries and stat cache made from the last snapshot's: what the last list and the
// new one share is copied over whole (array copies, not a step per file), and only the files that
// may have changed are looked at — those the stat check did not find unchanged and those listed
// in the part of the list that changed (listing-delta.ts). So a loop that changed a few files
// costs a few steps here, whatever the tree holds; the positions looked at are kept, for the id
// (content-entries.ts changedSince) and for the private index (stat-index.ts) to follow them.

import type { Stats } from 'node:fs';
import { fullPath, hashEntry, type Listing, type SnapshotFs } from './content-entries.js';
import { oldPlace, type Alignment } from './listing-delta.js';
import { sameStat, type CachedFile } from './stat-cache.js';
import { indexable } from './stat-index.js';

/** Which files of the last list are unchanged on disk; the stats of the others when they were taken. */
export interface Checked {
  unchanged: Uint8Array;
  /** undefined: not stat'ed yet (git named them). */
  stats?: Map<number, Stats | undefined>;
}

/** The last snapshot: its list, its stat cache and entries (aligned with the list), and what the stat check found. */
export interface LastSnapshot {
  listing: Listing;
  cache: Array<CachedFile | undefined>;
  entries: Array<string | undefined>;
  seen: Checked;
}

export interface NextEntries {
  cache: Array<CachedFile | undefined>;
  entries: Array<string | undefined>;
  /** The positions of the new list whose entry or cache may differ from the last ones (all of them on a first snapshot). */
  visited: number[];
}

/** The part of a list that stands, copied into the new list's places; the changed part left empty. */
export function carried<T>(old: readonly T[], align: Alignment | undefined, length: number): T[] {
  if (!align) return old.slice();
  const tailFromOld = align.tailFrom + align.shift;
  const out = old.slice(0, align.head).concat(new Array<T>(align.tailFrom - align.head), old.slice(tailFromOld));
  if (out.length !== length) throw new Error('a carried list does not match its listing');
  return out;
}

/** `carried` for a list of bytes (a new list's changed part is zeros). */
export function carriedBytes(old: Uint8Array, align: Alignment | undefined, length: number): Uint8Array {
  if (!align) return old.slice();
  const out = new Uint8Array(length);
  out.set(old.subarray(0, align.head), 0);
  out.set(old.subarray(align.tailFrom + align.shift), align.tailFrom);
  return out;
}

// Files stat'ed between turns of the event loop while git lists the files.
const STAT_TURN = 2048;

/** Which of a listing's cached files are unchanged on disk, each lstat'ed here; the stats of the others. */
export async function statListing(fs: SnapshotFs, of: Listing, cached: ReadonlyArray<CachedFile | undefined>): Promise<Checked> {
  const unchanged = new Uint8Array(of.paths.length);
  const stats = new Map<number, Stats | undefined>();
  for (let i = 0; i < of.paths.length; i++) {
    // In turns with the event loop, so git's output is read while it is still listing.
    if (i % STAT_TURN === STAT_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
    const st = fs.lstatSync(fullPath(of, i), { throwIfNoEntry: false });
    const hit = cached[i];
    if (st && hit && sameStat(hit, st)) unchanged[i] = 1;
    else stats.set(i, st);
  }
  return { unchanged, stats };
}

/** The new list's positions to look at: its changed part and the files of the rest not found unchanged. */
export function positionsToVisit(last: LastSnapshot, current: Listing, align: Alignment | undefined): number[] {
  const { unchanged } = last.seen;
  const out: number[] = [];
  if (!align) {
    for (let at = unchanged.indexOf(0); at !== -1; at = unchanged.indexOf(0, at + 1)) out.push(at);
    return out;
  }
  const tailFromOld = align.tailFrom + align.shift;
  for (let at = unchanged.indexOf(0); at !== -1 && at < align.head; at = unchanged.indexOf(0, at + 1)) out.push(at);
  for (let i = align.head; i < align.tailFrom; i++) out.push(i);
  for (let at = unchanged.indexOf(0, tailFromOld); at !== -1; at = unchanged.indexOf(0, at + 1)) out.push(at - align.shift);
  if (out.some((i) => i >= current.paths.length)) throw new Error('a position to visit lies beyond its listing');
  return out;
}

/**
 * Each listed file's entry: the cached one where the file is unchanged on disk, else hashed
 * again (the stat cache follows). Without a last snapshot every file is looked at. `reachable`:
 * whether a later check may vouch for the file at a path (its folder reached by the folder walk).
 */
export async function nextEntries(
  fs: SnapshotFs,
  current: Listing,
  align: Alignment | undefined,
  last: LastSnapshot | undefined,
  stamp: number,
  reachable: (path: string) => boolean = () => true,
): Promise<NextEntries> {
  const n = current.paths.length;
  const cache: Array<CachedFile | undefined> = last ? carried(last.cache, align, n) : new Array(n);
  const entries: Array<string | undefined> = last ? carried(last.entries, align, n) : new Array(n);
  const visited = last ? positionsToVisit(last, current, align) : Array.from({ length: n }, (_, i) => i);
  for (const i of visited) {
    const at = !last ? undefined : align ? oldPlace(align, i, current.paths[i]!) : i;
    const hit = at !== undefined ? last!.cache[at] : undefined;
    if (at !== undefined && last!.seen.unchanged[at] === 1) {
      cache[i] = hit;
      entries[i] = hit!.entry;
      continue;
    }
    // undefined: deleted since it was listed, or listed from the index only.
    const st = at !== undefined && last!.seen.stats ? last!.seen.stats.get(at) : fs.lstatSync(fullPath(current, i), { throwIfNoEntry: false });
    cache[i] = undefined;
    entries[i] = undefined;
    if (st === undefined) continue;
    if (hit && sameStat(hit, st)) {
      // Stat'ed after this snapshot's stamp: a change from now on shows in a later second.
      // Vouched for from now on, or no longer where its folder is no longer reached.
      const indexed = (hit.indexed || indexable(st, stamp)) && reachable(current.paths[i]!);
      cache[i] = hit.indexed === indexed ? hit : { ...hit, indexed };
      entries[i] = hit.entry;
      continue;
    }
    const entry = await hashEntry(fs, fullPath(current, i), st);
    entries[i] = entry;
    if (entry !== undefined && st.mtimeMs < stamp && st.ctimeMs < stamp) {
      const { size, mtimeMs, ctimeMs, dev, ino, mode, uid, gid } = st;
      cache[i] = { size, mtimeMs, ctimeMs, dev, ino, mode, uid, gid, entry, indexed: indexable(st, stamp) && reachable(current.paths[i]!) };
    }
  }
  return { cache, entries, visited };
}
