import { describe, expect, it } from 'vitest';
import { buildStatIndex } from '../../../lib/analysis/stat-index.js';
import {
  alignSlots,
  commonEnds,
  folderEntries,
  foldersListed,
  ignoreFileMoved,
  ignoreFiles,
  makeListing,
  slotsFor,
  oldPlace,
  relist,
} from '../../../lib/analysis/listing-delta.js';

const PREFIX = '/project/';
const excluded = (path: string): boolean => path.startsWith('.ralph/');
const raw = (paths: string[]): Buffer => Buffer.from(paths.map((p) => `${p}\0`).join(''));

// git's list: untracked files first, then the index (a conflicted path once per stage).
function gitList(untracked: string[], tracked: string[]): string[] {
  return [...untracked, ...tracked];
}

/** Checks the list made from the last one against one made from nothing, and where each path was. */
function check(before: string[], after: string[]): void {
  const prior = makeListing(raw(before), PREFIX, excluded);
  // The old list gives its paths to the new one: they are read before.
  const priorPaths = [...prior.paths];
  const { listing, align } = relist(prior, raw(after), PREFIX, excluded);
  const full = makeListing(raw(after), PREFIX, excluded);
  expect(listing.paths).toEqual(full.paths);
  expect(listing.prefix).toBe(full.prefix);
  expect([...listing.starts]).toEqual([...full.starts]);
  expect(listing.nested).toEqual(full.nested);
  listing.paths.forEach((path, i) => {
    const at = oldPlace(align, i, path);
    expect(at === undefined ? undefined : priorPaths[at]).toBe(priorPaths.includes(path) ? path : undefined);
  });
  expect(align.gone.map((at) => priorPaths[at]).sort()).toEqual(priorPaths.filter((p) => !full.paths.includes(p)).sort());
  expect(align.removed).toEqual(priorPaths.slice(align.head, align.tailFrom + align.shift));
}

describe('the next file list made from the last one', () => {
  const tracked = Array.from({ length: 300 }, (_, i) => `src/${String(i).padStart(3, '0')}.ts`);

  it('matches a list read in full, for files added, removed and renamed anywhere', () => {
    check(gitList([], tracked), gitList(['new.ts'], tracked));
    check(gitList(['new.ts'], tracked), gitList([], tracked));
    check(gitList([], tracked), gitList([], [...tracked, 'zz.ts']));
    check(gitList([], [...tracked, 'zz.ts']), gitList([], tracked));
    check(
      gitList([], tracked),
      gitList(
        [],
        tracked.map((p, i) => (i === 150 ? 'src/150-renamed.ts' : p)),
      ),
    );
    check(gitList(['a.ts', 'b.ts'], tracked), gitList(['b.ts', 'c.ts'], tracked.slice(10)));
    check(gitList([], tracked), gitList([], []));
    check(gitList([], []), gitList(['x/'], tracked));
  });

  it('matches it where names share their ends, and where excluded and repeated paths meet the edges', () => {
    check(['ab', 'c'], ['xab', 'c']);
    check(['src/a', 'src/b'], ['src/a', 'src/ab', 'src/b']);
    check(['a', '.ralph/x', 'b', 'b', 'c'], ['a', '.ralph/x', 'b', 'b', 'b', 'c']);
    check(['a', 'b', 'b', 'c'], ['a', 'b', 'c']);
    check(['a', 'vendor/', 'vendor/x'], ['a', 'vendor/', 'vendor/x', 'vendor/y']);
  });

  it('finds the longest head and tail two lists share on entry edges', () => {
    expect(commonEnds(raw(['a', 'b', 'c']), raw(['a', 'x', 'c']))).toEqual({ head: 2, tail: 2 });
    expect(commonEnds(raw(['ab', 'c']), raw(['xab', 'c']))).toEqual({ head: 0, tail: 2 });
    const same = raw(['a', 'b']);
    expect(commonEnds(same, Buffer.from(same))).toEqual({ head: same.length, tail: 0 });
  });
});

describe('the ignore files of a list', () => {
  it('are the entries named .gitignore, at the top or in a folder, found in the bytes, none left out', () => {
    const listing = makeListing(
      raw(['.gitignore', 'a/.gitignore', 'a/x.gitignore', 'b/.gitignore.bak', '.ralph/.gitignore', 'c/d/.gitignore']),
      PREFIX,
      excluded,
    );
    expect(ignoreFiles(listing, excluded)).toEqual([`${PREFIX}.gitignore`, `${PREFIX}a/.gitignore`, `${PREFIX}c/d/.gitignore`]);
    // The last entry of a list may end without a NUL (the files of a nested repository, appended).
    const unterminated = makeListing(Buffer.from('x.ts\0e/.gitignore'), PREFIX, excluded);
    expect(ignoreFiles(unterminated, excluded)).toEqual([`${PREFIX}e/.gitignore`]);
  });

  it("makes list after list in the arrays of the first: no new array of the list's length a loop, the same places as made afresh", () => {
    let paths = Array.from({ length: 2_000 }, (_, i) => `src/${String(i).padStart(4, '0')}.ts`);
    let listing = makeListing(raw(paths), PREFIX, excluded);
    const index = buildStatIndex(listing.paths, '', 20);
    slotsFor(listing, index, true);
    const pathOf = listing.slots!.pathOf;
    const buffers = new Set<ArrayBufferLike>();
    const steps: Array<(list: string[]) => string[]> = [
      (list) => [...list.slice(0, 10), 'src/0009a.ts', ...list.slice(10)],
      (list) => [...list.slice(0, 10), 'src/0009b.ts', ...list.slice(10)],
      (list) => list.filter((p) => p !== 'src/1500.ts'),
      (list) => [...list, 'zz.ts'],
      (list) => list.map((p) => (p === 'src/0700.ts' ? 'src/0700-renamed.ts' : p)),
      (list) => ['aa.ts', ...list],
    ];
    for (const step of steps) {
      paths = step(paths);
      const prior = listing;
      const made = relist(prior, raw(paths), PREFIX, excluded);
      const slots = alignSlots(prior, made.listing, made.align);
      listing = { ...made.listing, slots };
      const full = makeListing(raw(paths), PREFIX, excluded);
      expect([...listing.starts]).toEqual([...full.starts]);
      const fresh = slotsFor(full, index);
      expect([...slots.entryOf]).toEqual([...fresh.entryOf]);
      expect([...slots.pathOf]).toEqual([...fresh.pathOf]);
      expect(slots.missing).toBe(fresh.missing);
      expect(slots.pathOf).toBe(pathOf);
      buffers.add(listing.starts.buffer).add(slots.entryOf.buffer);
    }
    // One buffer with room for each, made at the first list that grew.
    expect(buffers.size).toBe(2);
  });

  it("moves the index's places of the old list's paths from the changed part on only: a list that grew at its end touches none", () => {
    const paths = Array.from({ length: 2_000 }, (_, i) => `src/${String(i).padStart(4, '0')}.ts`);
    const listing = makeListing(raw(paths), PREFIX, excluded);
    const index = buildStatIndex(listing.paths, '', 20);
    const slots = slotsFor(listing, index, true);
    // The places of the index's entries, each read and write counted.
    let touched = 0;
    const counted = new Proxy(slots.pathOf, {
      get: (target, key) => (typeof key === 'string' && /^\d+$/.test(key) && touched++, Reflect.get(target, key, target)),
      set: (target, key, value) => (touched++, Reflect.set(target, key, value, target)),
    });
    listing.slots = { ...slots, pathOf: counted };
    const grown = [...paths, 'src/2000.ts', 'src/2001.ts'];
    const made = relist(listing, raw(grown), PREFIX, excluded);
    const aligned = alignSlots(listing, made.listing, made.align);
    // The two new paths have no entry in the index (built before them): no place is set.
    expect(touched).toBe(0);
    expect(aligned.pathOf).toBe(counted);
    expect([...slots.pathOf]).toEqual([...slotsFor(makeListing(raw(grown), PREFIX, excluded), index).pathOf]);
  });

  it('reads the folder entries of a new list only where it differs from a last list that had none', () => {
    const tracked = Array.from({ length: 2_000 }, (_, i) => `src/${String(i).padStart(4, '0')}.ts`);
    const prior = makeListing(raw(tracked), PREFIX, excluded);
    let scanned = 0;
    const scan = (bytes: Buffer): string[] => ((scanned += bytes.length), folderEntries(bytes));
    expect(foldersListed(prior, prior.raw, scan)).toEqual([]);
    expect(scanned).toBe(0);
    const added = raw([...tracked.slice(0, 1000), 'vendor/lib/', ...tracked.slice(1000)]);
    expect(foldersListed(prior, added, scan)).toEqual(['vendor/lib/']);
    expect(scanned).toBe('vendor/lib/\0'.length);
    scanned = 0;
    expect(foldersListed(prior, raw([...tracked, 'z.ts']), scan)).toEqual([]);
    expect(scanned).toBe('z.ts\0'.length);
    // A last list with folders in it, or none: the whole list is read.
    const withFolder = makeListing(added, PREFIX, excluded);
    scanned = 0;
    expect(foldersListed(withFolder, raw(tracked), scan)).toEqual([]);
    expect(scanned).toBe(raw(tracked).length);
    expect(foldersListed(undefined, added, scan)).toEqual(['vendor/lib/']);
  });

  it('says when the ignore files of the last list may not stand for the next one: a `.gitignore` listed or gone where the list changed', () => {
    const before = ['a/.gitignore', 'a/x.ts', 'b/y.ts', 'c/z.ts'];
    const moved = (after: string[]): boolean => {
      const { listing, align } = relist(makeListing(raw(before), PREFIX, excluded), raw(after), PREFIX, excluded);
      return ignoreFileMoved(listing, align);
    };
    expect(moved(['a/.gitignore', 'a/x.ts', 'b/new.ts', 'b/y.ts', 'c/z.ts'])).toBe(false);
    expect(moved(['a/.gitignore', 'a/x.ts', 'b/y.ts'])).toBe(false);
    expect(moved(['a/.gitignore', 'a/x.ts', 'b/.gitignore', 'b/y.ts', 'c/z.ts'])).toBe(true);
    expect(moved(['a/x.ts', 'b/y.ts', 'c/z.ts'])).toBe(true);
    expect(moved(['.gitignore', 'a/.gitignore', 'a/x.ts', 'b/y.ts', 'c/z.ts'])).toBe(true);
    expect(moved(['a/.gitignore', 'a/x.ts', 'b/not.gitignore', 'b/y.ts', 'c/z.ts'])).toBe(false);
  });
});
