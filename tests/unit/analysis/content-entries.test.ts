import { describe, expect, it } from 'vitest';
import { contentId, type Entries, type Listing } from '../../../lib/analysis/content-entries.js';

// A listing of `count` paths, listed out of sorted order as git may give them.
function listing(count: number): Listing {
  const paths = Array.from({ length: count }, (_, i) => `dir${(i * 7919) % 97}/file-${i}.ts`);
  return { raw: Buffer.from(paths.join('\0')), paths, fulls: paths.map((path) => `/project/${path}`) };
}

function entriesOf(of: Listing, change: (i: number) => string | undefined = () => undefined): Entries {
  return { listing: of, entries: of.paths.map((_, i) => change(i) ?? `file ${String(i).padStart(40, '0')}`) };
}

describe('contentId', () => {
  const of = listing(5_000);

  it('gives the same id with the previous snapshot as without it, when nothing changed', () => {
    const first = entriesOf(of);
    const id = contentId(first);
    expect(contentId(entriesOf(of), first)).toBe(id);
  });

  it('sees one changed entry in a long list, given the previous snapshot, and agrees with a full hash', () => {
    const first = entriesOf(of);
    const id = contentId(first);
    for (const at of [0, 1023, 1024, 2500, 4999]) {
      const changed = entriesOf(of, (i) => (i === at ? 'file changed' : undefined));
      const reused = contentId(changed, first);
      expect(reused, `entry ${at}`).not.toBe(id);
      expect(reused, `entry ${at}`).toBe(contentId(entriesOf(of, (i) => (i === at ? 'file changed' : undefined))));
    }
  });

  it('sees a deleted entry and a change back, reusing blocks over several snapshots', () => {
    const first = entriesOf(of);
    const id = contentId(first);
    const deleted: Entries = { listing: of, entries: [...first.entries] };
    deleted.entries[3000] = undefined;
    const gone = contentId(deleted, first);
    expect(gone).not.toBe(id);
    expect(contentId(entriesOf(of), deleted)).toBe(id);
  });

  it('hashes a different list in full, even with the same number of paths', () => {
    const first = entriesOf(of);
    contentId(first);
    const renamed = listing(5_000);
    renamed.paths[10] = 'renamed.ts';
    expect(contentId(entriesOf(renamed), first)).toBe(contentId(entriesOf(renamed)));
    expect(contentId(entriesOf(renamed))).not.toBe(contentId(entriesOf(of)));
  });

  it('does not depend on the order git listed the paths in, and gives an id for an empty list', () => {
    const sorted = listing(3_000);
    const reversed: Listing = { raw: Buffer.from('r'), paths: [...sorted.paths].reverse(), fulls: [...sorted.fulls].reverse() };
    const byPath = (of2: Listing): Entries => ({ listing: of2, entries: of2.paths.map((path) => `file ${path.length}${path}`) });
    expect(contentId(byPath(reversed))).toBe(contentId(byPath(sorted)));
    const empty = listing(0);
    expect(contentId(entriesOf(empty))).toMatch(/^[0-9a-f]{40}$/);
    expect(contentId(entriesOf(empty))).not.toBe(contentId(entriesOf(listing(1))));
  });
});
