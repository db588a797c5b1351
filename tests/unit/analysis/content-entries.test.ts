import { describe, expect, it } from 'vitest';
import { changedBetween, changedSince, contentId, entriesBefore, entriesSum, type Entries, type Listing } from '../../../lib/analysis/content-entries.js';

// A listing of `count` paths, listed out of sorted order as git may give them.
function listing(count: number): Listing {
  const paths = Array.from({ length: count }, (_, i) => `dir${(i * 7919) % 97}/file-${i}.ts`);
  return { raw: Buffer.from(paths.join('\0')), paths, prefix: '/project/', starts: new Int32Array(count) };
}

function entriesOf(of: Listing, change: (i: number) => string | undefined = () => undefined): Entries {
  const entries = of.paths.map((_, i) => change(i) ?? `file ${String(i).padStart(40, '0')}`);
  return { listing: of, entries, sum: entriesSum(of.paths, entries) };
}

const idOf = (e: Entries): string => contentId(e.sum);
const same = (i: number): number => i;

describe('the content id', () => {
  const of = listing(5_000);

  it('updated by the entries that changed, is the id of the whole list, and says what changed', () => {
    const first = entriesOf(of);
    for (const at of [0, 1023, 2500, 4999]) {
      const changed = entriesOf(of, (i) => (i === at ? 'file changed' : undefined));
      const delta = changedSince(first.sum, of, changed.entries, entriesBefore(first, same, []));
      expect(contentId(delta.sum), `entry ${at}`).toBe(idOf(changed));
      expect(contentId(delta.sum), `entry ${at}`).not.toBe(idOf(first));
      expect([...delta.changes.keys()]).toEqual([of.paths[at]]);
    }
  });

  it('sees a deleted entry and a change back to the same id', () => {
    const first = entriesOf(of);
    const entries = [...first.entries];
    entries[3000] = undefined;
    const gone = changedSince(first.sum, of, entries, entriesBefore(first, same, []));
    expect(contentId(gone.sum)).not.toBe(idOf(first));
    const back = changedSince(gone.sum, of, first.entries, entriesBefore({ listing: of, entries, sum: gone.sum }, same, []));
    expect(contentId(back.sum)).toBe(idOf(first));
  });

  it('follows a list that gained and lost paths, given where each path was before', () => {
    const first = entriesOf(of);
    const next = listing(5_000);
    next.paths[10] = 'renamed.ts';
    const place = (i: number): number | undefined => (i === 10 ? undefined : i);
    const now = entriesOf(next);
    const delta = changedSince(first.sum, next, now.entries, entriesBefore(first, place, [[of.paths[10]!, 10]]));
    expect(contentId(delta.sum)).toBe(idOf(now));
    expect([...delta.changes.keys()].sort()).toEqual([of.paths[10], 'renamed.ts'].sort());
  });

  it('does not depend on the order of the list, and gives an id for an empty list', () => {
    const sorted = listing(3_000);
    const reversed: Listing = { ...sorted, paths: [...sorted.paths].reverse() };
    const byPath = (of2: Listing): Entries => entriesOf(of2, (i) => `file ${of2.paths[i]!.length}${of2.paths[i]}`);
    expect(idOf(byPath(reversed))).toBe(idOf(byPath(sorted)));
    expect(idOf(entriesOf(listing(0)))).toMatch(/^[0-9a-f]{40}$/);
    expect(idOf(entriesOf(listing(0)))).not.toBe(idOf(entriesOf(listing(1))));
  });

  it('names what changed between two snapshots a few apart, and nothing when a change was undone', () => {
    const history = [
      { id: 'a', changes: new Map() },
      { id: 'b', changes: new Map<string, [string | undefined, string | undefined]>([['x', ['1', '2']]]) },
      { id: 'c', changes: new Map<string, [string | undefined, string | undefined]>([['y', [undefined, '1']]]) },
      { id: 'd', changes: new Map<string, [string | undefined, string | undefined]>([['x', ['2', '1']]]) },
    ];
    expect(changedBetween(history, 'a', 'c')).toEqual(['x', 'y']);
    expect(changedBetween(history, 'c', 'a')).toEqual(['x', 'y']);
    expect(changedBetween(history, 'a', 'd')).toEqual(['y']);
    expect(changedBetween(history, 'gone', 'd')).toEqual([]);
  });
});
