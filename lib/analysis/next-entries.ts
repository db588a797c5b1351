// A snapshot's entries and stat cache made from the last snapshot's: the last snapshot's arrays
// become the new ones, changed in place where the list changed (listing-delta.ts spliceInPlace:
// the rest moved, not copied), and only the files that may have changed are looked at — those
// the stat check did not find unchanged and those listed in the part of the list that changed.
// So a loop that changed a few files costs a few steps here and leaves no copy of a list behind,
// whatever the tree holds; the positions looked at are kept, with what each held before, for the
// id (content-entries.ts changedSince) and for the private index (stat-index.ts) to follow them.

import type { Stats } from 'node:fs';
import { fullPath, hashEntry, type EntriesBefore, type Listing, type SnapshotFs } from './content-entries.js';
import { oldPlace, spliceInPlace, type Alignment } from './listing-delta.js';
import { CachedFile, sameStat } from './stat-cache.js';
import { indexable } from './stat-index.js';

/** Which files of the last list are unchanged on disk; the stats of the others when they were taken. */
export interface Checked {
  unchanged: Uint8Array;
  /** undefined: not stat'ed yet (git named them). */
  stats?: Map<number, Stats | undefined>;
}

/**
 * The last snapshot: its list, its stat cache and entries (aligned with the list), and what the
 * stat check found. The cache and entries become the next snapshot's (nextEntries): they are not
 * to be used after it.
 */
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
  /** The last snapshot's entries at the visited positions and the paths gone (undefined on a first snapshot). */
  before?: EntriesBefore;
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

/** The last snapshot's cache and entries moved to the new list's places (its changed part empty), with what they held in the changed part. */
function carriedOver(last: LastSnapshot, align: Alignment | undefined, length: number) {
  if (!align) return { cache: last.cache, entries: last.entries, removedCache: [], removedEntries: [] };
  const count = align.tailFrom + align.shift - align.head;
  const holes = new Array<undefined>(align.tailFrom - align.head).fill(undefined);
  const cache = spliceInPlace<CachedFile | undefined>(last.cache, align.head, count, holes);
  const entries = spliceInPlace<string | undefined>(last.entries, align.head, count, holes);
  if (cache.list.length !== length || entries.list.length !== length) throw new Error('a carried list does not match its listing');
  return { cache: cache.list, entries: entries.list, removedCache: cache.removed, removedEntries: entries.removed };
}

/**
 * Each listed file's entry: the cached one where the file is unchanged on disk, else hashed
 * again (the stat cache follows). Without a last snapshot every file is looked at; with one, its
 * cache and entries are the ones returned, changed in place. `reachable`: whether a later check
 * may vouch for the file at a path (its folder reached by the folder walk).
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
  if (!last) {
    const fresh = { cache: new Array<CachedFile | undefined>(n), entries: new Array<string | undefined>(n), visited: Array.from({ length: n }, (_, i) => i) };
    for (const i of fresh.visited) await visit(fs, current, i, undefined, null, stamp, reachable, fresh);
    return fresh;
  }
  const visited = positionsToVisit(last, current, align);
  const { cache, entries, removedCache, removedEntries } = carriedOver(last, align, n);
  const head = align?.head ?? 0;
  const inMiddle = (i: number): boolean => align !== undefined && i >= align.head && i < align.tailFrom;
  const was = new Map<number, string | undefined>();
  for (const i of visited) {
    const at = align ? oldPlace(align, i, current.paths[i]!) : i;
    // Where the list stands, the last snapshot's values are in place until this position is looked at.
    const hit = at === undefined ? undefined : inMiddle(i) ? removedCache[at - head] : cache[i];
    was.set(i, at === undefined ? undefined : inMiddle(i) ? removedEntries[at - head] : entries[i]);
    if (at !== undefined && last.seen.unchanged[at] === 1) {
      cache[i] = hit;
      entries[i] = hit!.entry;
      continue;
    }
    // undefined: deleted since it was listed, or listed from the index only.
    const st = at !== undefined && last.seen.stats ? last.seen.stats.get(at) : fs.lstatSync(fullPath(current, i), { throwIfNoEntry: false });
    await visit(fs, current, i, hit, st, stamp, reachable, { cache, entries });
  }
  const gone = (align?.gone ?? []).map((at) => [align!.removed[at - head]!, removedEntries[at - head]] as const);
  return { cache, entries, visited, before: { at: (i) => was.get(i), gone } };
}

/** Sets file i's cache and entry from its stat (`hit`: what was cached for it; `st` undefined: gone; null: stat'ed here). */
async function visit(
  fs: SnapshotFs,
  current: Listing,
  i: number,
  hit: CachedFile | undefined,
  st: Stats | undefined | null,
  stamp: number,
  reachable: (path: string) => boolean,
  out: { cache: Array<CachedFile | undefined>; entries: Array<string | undefined> },
): Promise<void> {
  const { cache, entries } = out;
  if (st === null) st = fs.lstatSync(fullPath(current, i), { throwIfNoEntry: false });
  cache[i] = undefined;
  entries[i] = undefined;
  if (st === undefined) return;
  if (hit && sameStat(hit, st)) {
    // Stat'ed after this snapshot's stamp: a change from now on shows in a later second.
    // Vouched for from now on, or no longer where its folder is no longer reached.
    const indexed = (hit.indexed || indexable(st, stamp)) && reachable(current.paths[i]!);
    cache[i] = hit.indexed === indexed ? hit : hit.withIndexed(indexed);
    entries[i] = hit.entry;
    return;
  }
  const entry = await hashEntry(fs, fullPath(current, i), st);
  entries[i] = entry;
  if (entry !== undefined && st.mtimeMs < stamp && st.ctimeMs < stamp) {
    cache[i] = CachedFile.of(st, entry, indexable(st, stamp) && reachable(current.paths[i]!));
  }
}
