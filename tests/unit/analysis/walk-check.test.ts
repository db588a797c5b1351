// The stat check after the walk looks up the entries the walk named in the private index's own
// order (a few) and through a map made for the call (many): the index keeps no map as large as
// the list between loops, and a list made from the last one finds its new paths the same way.

import { describe, expect, it } from 'vitest';
import { alignSlots, makeListing, relist, slotsFor } from '../../../lib/analysis/listing-delta.js';
import { buildStatIndex, type StatIndex } from '../../../lib/analysis/stat-index.js';
import { unchangedAfterWalk } from '../../../lib/analysis/walk-check.js';

const FILES = 3_000;
const raw = (paths: string[]): Buffer => Buffer.from(paths.map((p) => `${p}\0`).join(''));
const name = (i: number): string => `d${i % 30}/f${String(i).padStart(5, '0')}.ts`;
const holdsAMap = (index: StatIndex): boolean => Object.values(index).some((value) => value instanceof Map);

function indexed(prefix: string) {
  const paths = Array.from({ length: FILES }, (_, i) => name(i)).sort();
  const listing = makeListing(raw(paths), '/project/', () => false);
  const index = buildStatIndex(listing.paths, prefix, 20);
  const slots = slotsFor(listing, index, true);
  return { paths, listing, index, slots, vouched: new Uint8Array(FILES).fill(1) };
}

describe('the stat check after the walk', () => {
  for (const prefix of ['', 'sub/']) {
    it(`drops the files the walk named, found one by one or through a map, alike (prefix '${prefix}')`, () => {
      const { paths, index, slots, vouched } = indexed(prefix);
      const few = [paths[5]!, paths[2999]!, 'not/listed.ts'];
      const many = [...few, ...Array.from({ length: 2_000 }, (_, i) => `other/x${i}`)];
      const fromFew = unchangedAfterWalk({ index, vouched, pathOf: slots.pathOf }, few, [], prefix, () => false)!;
      const fromMany = unchangedAfterWalk({ index, vouched, pathOf: slots.pathOf }, many, [], prefix, () => false)!;
      expect([...fromFew].flatMap((v, i) => (v ? [] : [i]))).toEqual([5, 2999]);
      expect(fromMany).toEqual(fromFew);
      expect(holdsAMap(index)).toBe(false);
    });
  }

  it("places a list made from the last one in the index without keeping a map of the index's paths", () => {
    const { paths, listing, index } = indexed('');
    const after = [...paths.slice(0, 100), 'd1/added.ts', ...paths.slice(101)];
    const priorPaths = [...listing.paths];
    const { listing: next, align } = relist(listing, raw(after), '/project/', () => false);
    const slots = alignSlots(listing, next, align);
    expect(holdsAMap(index)).toBe(false);
    // The new path has no entry; the one gone lost its entry's place; the rest are where they were.
    expect(slots.entryOf[100]).toBe(-1);
    expect(slots.pathOf[priorPaths.indexOf(paths[100]!)]).toBe(-1);
    expect(slots.missing).toBe(1);
    for (const i of [0, 99, 101, 2999]) expect(index.paths[slots.entryOf[i]!]).toBe(next.paths[i]);
  });
});
