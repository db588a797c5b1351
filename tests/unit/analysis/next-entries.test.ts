// A snapshot after a loop that changed a few files of a large tree looks at those files only:
// the entries, the stat cache and what the private index vouches for are carried over whole, and
// the files looked at (a few, whatever the tree holds) are the ones the id and the index follow.

import { lstatSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changedSince, entriesSum, nodeFs, type SnapshotFs } from '../../../lib/analysis/content-entries.js';
import { makeListing, relist } from '../../../lib/analysis/listing-delta.js';
import { carriedBytes, nextEntries, type LastSnapshot } from '../../../lib/analysis/next-entries.js';
import { CachedFile, sameStat } from '../../../lib/analysis/stat-cache.js';
import { buildStatIndex, syncStatIndex } from '../../../lib/analysis/stat-index.js';

const FILES = 5_000;
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

const raw = (paths: string[]): Buffer => Buffer.from(paths.map((p) => `${p}\0`).join(''));
const name = (i: number): string => `f${String(i).padStart(5, '0')}.ts`;
// Every file is older than the stamp: the cache keeps them all.
const STAMP = Date.now() + 60_000;

/** A folder of FILES files, with the real filesystem's lstat counted. */
function tree(): { dir: string; fs: SnapshotFs; lstats: () => number } {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-next-entries-'));
  dirs.push(dir);
  for (let i = 0; i < FILES; i++) writeFileSync(join(dir, name(i)), `${i}\n`);
  let count = 0;
  const fs: SnapshotFs = { ...nodeFs, lstatSync: (path, options) => (count++, lstatSync(path, options)) };
  return { dir, fs, lstats: () => count };
}

describe('the entries of a snapshot after a loop', () => {
  it('looks at the files the stat check did not vouch for and those newly listed, and at nothing else', async () => {
    const { dir, fs, lstats } = tree();
    const paths = Array.from({ length: FILES }, (_, i) => name(i));
    const prior = makeListing(raw(paths), `${dir}/`, () => false);
    const first = await nextEntries(fs, prior, undefined, undefined, STAMP);
    expect(first.visited).toHaveLength(FILES);
    // A loop rewrote file 10 and added one between 2000 and 2001; the stat check vouched for the rest.
    writeFileSync(join(dir, name(10)), 'changed\n');
    writeFileSync(join(dir, 'f02000a.ts'), 'new\n');
    const unchanged = new Uint8Array(FILES).fill(1);
    unchanged[10] = 0;
    const last: LastSnapshot = { listing: prior, cache: first.cache, entries: first.entries, seen: { unchanged } };
    const firstSum = entriesSum(prior.paths, first.entries);
    const after = [...paths.slice(0, 2001), 'f02000a.ts', ...paths.slice(2001)];
    const { listing, align } = relist(prior, raw(after), `${dir}/`, () => false);
    const before = lstats();
    const next = await nextEntries(fs, listing, align, last, STAMP);
    expect(next.visited).toEqual([10, 2001]);
    expect(lstats() - before).toBe(2);
    // No list was copied: the last snapshot's arrays are the new ones, changed in place.
    expect(listing.paths).toBe(prior.paths);
    expect(next.cache).toBe(first.cache);
    expect(next.entries).toBe(first.entries);
    // The same entries as a snapshot taken afresh.
    const fresh = await nextEntries(nodeFs, listing, undefined, undefined, STAMP);
    expect(next.entries).toEqual(fresh.entries);
    expect(next.cache.map((c) => c?.entry)).toEqual(fresh.cache.map((c) => c?.entry));
    // The id follows the looked-at files only, and comes out as a sum over every entry.
    const delta = changedSince(firstSum, listing, next.entries, next.before!, next.visited);
    expect([...delta.changes.keys()].sort()).toEqual(['f00010.ts', 'f02000a.ts']);
    expect(delta.sum).toBe(entriesSum(listing.paths, fresh.entries));
  });

  it('follows files removed and renamed in the part of the list that changed, with what they held', async () => {
    const { dir, fs } = tree();
    const paths = Array.from({ length: FILES }, (_, i) => name(i));
    const prior = makeListing(raw(paths), `${dir}/`, () => false);
    const first = await nextEntries(fs, prior, undefined, undefined, STAMP);
    const firstSum = entriesSum(prior.paths, first.entries);
    const firstEntries = [...first.entries];
    // File 3000 renamed to 3000r, file 3001 removed; file 3002 unchanged but listed in the changed part.
    renameSync(join(dir, name(3000)), join(dir, 'f03000r.ts'));
    rmSync(join(dir, name(3001)));
    const after = [...paths.slice(0, 3000), 'f03000r.ts', ...paths.slice(3002)];
    const last: LastSnapshot = { listing: prior, cache: first.cache, entries: first.entries, seen: { unchanged: new Uint8Array(FILES).fill(1) } };
    const { listing, align } = relist(prior, raw(after), `${dir}/`, () => false);
    const next = await nextEntries(fs, listing, align, last, STAMP);
    expect(next.before!.gone).toEqual([
      [name(3000), firstEntries[3000]],
      [name(3001), firstEntries[3001]],
    ]);
    const fresh = await nextEntries(nodeFs, listing, undefined, undefined, STAMP);
    expect(next.entries).toEqual(fresh.entries);
    const delta = changedSince(firstSum, listing, next.entries, next.before!, next.visited);
    expect([...delta.changes.keys()].sort()).toEqual([name(3000), name(3001), 'f03000r.ts'].sort());
    expect(delta.sum).toBe(entriesSum(listing.paths, fresh.entries));
  });
});

describe('the stat cache of a file', () => {
  it('keeps the stat data as one text, no number per field, and gives the same numbers back', async () => {
    const { dir, fs } = tree();
    const paths = [name(0), name(1)];
    const first = await nextEntries(
      fs,
      makeListing(raw(paths), `${dir}/`, () => false),
      undefined,
      undefined,
      STAMP,
    );
    const hit = first.cache[0]!;
    expect(Object.values(hit).filter((value) => typeof value === 'number')).toEqual([]);
    const st = lstatSync(join(dir, name(0)));
    const { size, mtimeMs, ctimeMs, ino, mode, dev, uid, gid } = st;
    expect(hit.statData()).toEqual({ size, mtimeMs, ctimeMs, ino, mode, dev, uid, gid });
    expect(sameStat(hit, st)).toBe(true);
    expect(sameStat(hit, lstatSync(join(dir, name(1))))).toBe(false);
    utimesSync(join(dir, name(0)), new Date(mtimeMs + 1000), new Date(mtimeMs + 1000));
    expect(sameStat(hit, lstatSync(join(dir, name(0))))).toBe(false);
  });
});

describe("the private index's sync", () => {
  const cached = (ino: number, indexed = true): CachedFile =>
    CachedFile.of({ ctimeMs: 1e12, mtimeMs: 1e12, dev: 1, ino, mode: 0o100644, uid: 0, gid: 0, size: 3 }, `file ${ino}`, indexed);

  it('writes only the entries of the files given since the last sync, and says which files it vouches for', () => {
    const paths = Array.from({ length: FILES }, (_, i) => name(i));
    const index = buildStatIndex(paths, '', 20);
    const entryOf = Int32Array.from(paths, (_, i) => i);
    const cache: Array<CachedFile | undefined> = paths.map((_, i) => cached(i + 1));
    const vouched = syncStatIndex(index, entryOf, cache);
    expect(vouched.reduce((a, b) => a + b, 0)).toBe(FILES);
    // Two files changed since; a third one's cache too, but it is not named: it is left as it was.
    cache[5] = cached(99_001, false);
    cache[6] = cached(99_002);
    cache[7] = cached(99_003);
    index.dirty.clear();
    const now = syncStatIndex(index, entryOf, cache, { vouched: carriedBytes(vouched, undefined, FILES), positions: [5, 6] });
    expect([...index.dirty].sort((a, b) => a - b)).toEqual([index.offsets[5], index.offsets[6]]);
    expect(index.held[5]).toBeUndefined();
    expect(index.held[6]).toBe(cache[6]);
    expect(index.held[7]).not.toBe(cache[7]);
    expect([now[5], now[6], now[7]]).toEqual([0, 1, 1]);
  });
});
