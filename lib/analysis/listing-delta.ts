// A snapshot's file list, and the next one made from it: git's list of a loop later is mostly
// the same bytes, so only the part between the longest common head and tail is read again, and
// each path of the new list is matched with its place in the old one without a map of the whole
// list. A loop that adds or removes a few files costs what it changed, not what the tree holds.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { inNested, type Listing, type Slots } from './content-entries.js';
import { entryPosition, indexPositions, type StatIndex } from './stat-index.js';

/** Where each path of a new list was in the old one. */
export interface Alignment {
  /** Paths 0..head-1 are where they were. */
  head: number;
  /** Paths from `tailFrom` on were `shift` places further on in the old list. */
  tailFrom: number;
  shift: number;
  /** The paths in between that were listed before, with their old place. */
  middle: Map<string, number>;
  /** Old places of the paths in between that are no longer listed. */
  gone: number[];
  /** The old list's paths in between (from `head` up to its tail), as they were: the old list gave its paths to the new one. */
  removed: string[];
}

/** A path's place in the old list; undefined when it was not listed. */
export function oldPlace(align: Alignment, i: number, path: string): number | undefined {
  if (i < align.head) return i;
  if (i >= align.tailFrom) return i + align.shift;
  return align.middle.get(path);
}

/** The list of `raw` (paths not `excluded`, each once), `starts`: where each path's bytes begin. */
export function makeListing(raw: Buffer, projectPrefix: string, isExcluded: (path: string) => boolean): Listing {
  const { paths, starts } = parseRange(raw, 0, raw.length, isExcluded, undefined);
  return withDerived({ raw, paths, prefix: projectPrefix, starts: Int32Array.from(starts) });
}

/**
 * The list of `raw` made from `prior`'s, with where each of its paths was in `prior`. The new
 * list takes `prior`'s array of paths, changed in place where the change is small (so a loop
 * that changed a few paths copies no list), and the room of its `starts`: `prior` is not to be
 * used after this call (its old paths in between are `align.removed`).
 */
export function relist(prior: Listing, raw: Buffer, projectPrefix: string, isExcluded: (path: string) => boolean): { listing: Listing; align: Alignment } {
  const old = prior.raw;
  const { head: headBytes, tail: tailBytes } = commonEnds(old, raw);
  const head = lowerBound(prior.starts, headBytes);
  const oldTail = lowerBound(prior.starts, old.length - tailBytes);
  const shiftBytes = raw.length - old.length;
  // Consecutive duplicates (a path in several merge stages) are listed once, across the edges too.
  const before = head > 0 ? prior.paths[head - 1] : undefined;
  const parsed = parseRange(raw, headBytes, raw.length - tailBytes, isExcluded, before);
  let tailStart = oldTail;
  if (tailStart < prior.paths.length && prior.paths[tailStart] === (parsed.paths.at(-1) ?? before)) tailStart++;
  const starts = spliceInts(prior.starts, head, tailStart - head, parsed.paths.length);
  starts.set(parsed.starts, head);
  const tailFrom = head + parsed.paths.length;
  if (shiftBytes !== 0) for (let k = tailFrom; k < starts.length; k++) starts[k] = starts[k]! + shiftBytes;
  const oldMiddle = new Map<string, number>();
  for (let k = head; k < tailStart; k++) oldMiddle.set(prior.paths[k]!, k);
  const { list: paths, removed } = spliceInPlace(prior.paths, head, tailStart - head, parsed.paths);
  const middle = new Map<string, number>();
  for (const path of parsed.paths) {
    const at = oldMiddle.get(path);
    if (at === undefined) continue;
    middle.set(path, at);
    oldMiddle.delete(path);
  }
  const listing = withDerived({ raw, paths, prefix: projectPrefix, starts }, prior, head, tailFrom);
  return { listing, align: { head, tailFrom, shift: tailStart - tailFrom, middle, gone: [...oldMiddle.values()], removed } };
}

/**
 * The new list's places in the private index the old list's were aligned with (content-snapshot.ts),
 * made in the old list's arrays (moved in place where they have room): `prior`'s are not to be used after.
 */
export function alignSlots(prior: Listing, of: Listing, align: Alignment): Slots {
  const old = prior.slots!;
  const { index } = old;
  const tailFromOld = align.tailFrom + align.shift;
  const counted = (listing: Listing, path: string): boolean => !path.endsWith('/') && !inNested(listing, path);
  let missing = old.missing;
  for (let k = align.head; k < tailFromOld; k++) if (old.entryOf[k]! < 0 && counted(prior, align.removed[k - align.head]!)) missing--;
  // The entries of the old list's places from the head on move or go (those before it stay):
  // a list that only grew at its end moves none.
  const pathOf = old.pathOf;
  for (let k = align.head; k < old.entryOf.length; k++) {
    const e = old.entryOf[k]!;
    if (e >= 0) pathOf[e] = k < tailFromOld ? -1 : k - align.shift;
  }
  const entryOf = spliceInts(old.entryOf, align.head, tailFromOld - align.head, align.tailFrom - align.head);
  for (let i = align.head; i < align.tailFrom; i++) {
    const at = entryPosition(index, of.paths[i]!);
    entryOf[i] = at >= 0 && index.offsets[at]! >= 0 ? at : -1;
    if (entryOf[i]! >= 0) pathOf[at] = i;
    else if (counted(of, of.paths[i]!)) missing++;
  }
  return { index, entryOf, pathOf, missing };
}

function withDerived(listing: Listing, prior?: Listing, head = 0, tailFrom = 0): Listing {
  const { paths } = listing;
  const isFolder = (p: string): boolean => p.endsWith('/');
  // The folders git lists whole are few: where none was or came in the changed part, there is none.
  const none = prior?.nested?.length === 0 && !paths.slice(head, tailFrom).some(isFolder);
  listing.nested = none ? [] : paths.filter(isFolder);
  return listing;
}

/**
 * `list` with its `count` numbers from `start` replaced by `inserted` places (left as they were,
 * to be set): the rest moved within `list`'s buffer where it has room, else copied into a new
 * one with room to grow. `list` is not to be used after.
 */
export function spliceInts(list: Int32Array, start: number, count: number, inserted: number): Int32Array {
  const length = list.length - count + inserted;
  const room = list.buffer.byteLength / Int32Array.BYTES_PER_ELEMENT - list.byteOffset / Int32Array.BYTES_PER_ELEMENT;
  if (length <= room) {
    const span = new Int32Array(list.buffer, list.byteOffset, Math.max(length, list.length));
    span.copyWithin(start + inserted, start + count, list.length);
    return span.length === length ? span : span.subarray(0, length);
  }
  const out = new Int32Array(new ArrayBuffer((length + (length >> 4) + 64) * Int32Array.BYTES_PER_ELEMENT), 0, length);
  out.set(list.subarray(0, start), 0);
  out.set(list.subarray(start + count), start + inserted);
  return out;
}

// Items put in place at most by one splice (each is an argument of the call); past it, or when
// most of the list changes, the list is copied instead.
const SPLICE_AT_MOST = 4096;

/**
 * `list` with its `count` items from `start` replaced by `items`, and the items it held there:
 * changed in place (the rest moved, not copied) when the change is small, else a new list (a
 * copy made whole, not item by item) and `list` left as it was.
 */
export function spliceInPlace<T>(list: T[], start: number, count: number, items: readonly T[]): { list: T[]; removed: T[] } {
  if (items.length <= SPLICE_AT_MOST && items.length + count <= (list.length >> 1) + SPLICE_AT_MOST) {
    return { list, removed: list.splice(start, count, ...items) };
  }
  return { list: list.slice(0, start).concat(items, list.slice(start + count)), removed: list.slice(start, start + count) };
}

/** The paths of raw[from, to) (`\0`-separated entries), without excluded ones and repeats of the one before. */
function parseRange(raw: Buffer, from: number, to: number, isExcluded: (path: string) => boolean, before: string | undefined) {
  const paths: string[] = [];
  const starts: number[] = [];
  let last = before;
  let at = from;
  while (at < to) {
    let end = raw.indexOf(0, at);
    if (end === -1 || end > to) end = to;
    if (end > at) {
      const path = raw.toString('utf8', at, end);
      if (path !== last && !isExcluded(path)) {
        paths.push(path);
        starts.push(at);
      }
      last = path;
    }
    at = end + 1;
  }
  return { paths, starts };
}

/**
 * The longest head and tail two lists share, each ending on an entry's edge in both (after a
 * `\0`, or at an end), and never overlapping.
 */
export function commonEnds(a: Buffer, b: Buffer): { head: number; tail: number } {
  const limit = Math.min(a.length, b.length);
  let head = 0;
  // Whole blocks first, then byte by byte.
  for (const step of [65536, 4096, 256, 16, 1]) {
    while (head + step <= limit && a.compare(b, head, head + step, head, head + step) === 0) head += step;
  }
  if (head < a.length || head < b.length) head = head === 0 ? 0 : a.lastIndexOf(0, head - 1) + 1;
  let tail = 0;
  const room = limit - head;
  for (const step of [65536, 4096, 256, 16, 1]) {
    while (tail + step <= room && a.compare(b, b.length - tail - step, b.length - tail, a.length - tail - step, a.length - tail) === 0) tail += step;
  }
  // The tail starts where an entry starts, in both lists.
  if (tail > 0 && !(edge(a, a.length - tail) && edge(b, b.length - tail))) {
    const next = a.indexOf(0, a.length - tail);
    tail = next === -1 ? 0 : a.length - next - 1;
  }
  return { head, tail };
}

function edge(buffer: Buffer, at: number): boolean {
  return at === 0 || buffer[at - 1] === 0;
}

/** The first index whose value is at least `value` (`values` ascending). */
function lowerBound(values: Int32Array, value: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (values[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Every file below `dir` (project-relative, `/`-separated), for a folder that is no repository. */
export function walkFolder(dir: string): string[] {
  const out: string[] = [];
  const visit = (rel: string): void => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== '.git') visit(path);
      } else out.push(path);
    }
  };
  visit('');
  return out;
}

/** The entries of a `\0`-separated list that end in `/` (folders git lists whole), found in its bytes without decoding the rest. */
export function folderEntries(raw: Buffer): string[] {
  const out: string[] = [];
  for (let at = raw.indexOf('/\0'); at !== -1; at = raw.indexOf('/\0', at + 2)) out.push(raw.toString('utf8', raw.lastIndexOf(0, at) + 1, at + 1));
  if (raw.length > 0 && raw[raw.length - 1] === 0x2f) out.push(raw.toString('utf8', raw.lastIndexOf(0) + 1));
  return out;
}

/**
 * The folder entries of git's new list `own` (`dir/`: nested repositories), read from the part
 * that differs from the last list where the last one had none (its bytes are git's own list
 * then: what they share holds none); `scan` reads a list's folder entries (folderEntries).
 */
export function foldersListed(prior: Listing | undefined, own: Buffer, scan: (raw: Buffer) => string[] = folderEntries): string[] {
  if (prior?.nested?.length !== 0) return scan(own);
  if (prior.raw === own) return [];
  const { head, tail } = commonEnds(prior.raw, own);
  return scan(own.subarray(head, own.length - tail));
}

/** The `.gitignore` files of a list (on disk, none left out), found in its bytes without decoding the rest. */
export function ignoreFiles(listing: Listing, isExcluded: (path: string) => boolean): string[] {
  const { raw } = listing;
  const name = Buffer.from('.gitignore');
  const out = new Set<string>();
  for (let at = raw.indexOf(name); at !== -1; at = raw.indexOf(name, at + 1)) {
    const end = at + name.length;
    // The whole name of an entry: after a `/` or at the entry's start, and up to its end.
    if ((end < raw.length && raw[end] !== 0) || (at > 0 && raw[at - 1] !== 0 && raw[at - 1] !== 0x2f)) continue;
    const start = at === 0 ? 0 : raw.lastIndexOf(0, at - 1) + 1;
    const path = raw.toString('utf8', start, end);
    if (!isExcluded(path)) out.add(listing.prefix + path);
  }
  return [...out];
}

/** A `.gitignore` was listed or is gone in the part of the list that changed (ignoreFiles finds the others where they were). */
export function ignoreFileMoved(of: Listing, align: Alignment): boolean {
  const isIgnoreFile = (path: string): boolean => path === '.gitignore' || path.endsWith('/.gitignore');
  return align.removed.some(isIgnoreFile) || of.paths.slice(align.head, align.tailFrom).some(isIgnoreFile);
}

/** A list's places in a private index (built for it, `builtFor`, or for an earlier list). */
export function slotsFor(of: Listing, index: StatIndex, builtFor = false): Slots {
  if (of.slots?.index === index) return of.slots;
  const entryOf = new Int32Array(of.paths.length);
  const pathOf = new Int32Array(index.paths.length).fill(-1);
  const positions = builtFor ? undefined : indexPositions(index);
  let missing = 0;
  for (let i = 0; i < of.paths.length; i++) {
    const at = positions ? (positions.get(of.paths[i]!) ?? -1) : i;
    entryOf[i] = at >= 0 && index.offsets[at]! >= 0 ? at : -1;
    if (entryOf[i]! >= 0) pathOf[at] = i;
    else if (!of.paths[i]!.endsWith('/') && !inNested(of, of.paths[i]!)) missing++;
  }
  return (of.slots = { index, entryOf, pathOf, missing });
}
