import { describe, expect, it } from 'vitest';
import { foldersToList, spliceListing } from '../../../lib/analysis/changed-folders.js';

const raw = (paths: string[]): Buffer => Buffer.from(paths.map((p) => `${p}\0`).join(''));
const paths = (buffer: Buffer): string[] => buffer.toString('utf8').split('\0').filter(Boolean);

describe('the list of a loop later, from the folders that changed', () => {
  it('asks about the top changed folders only, none the snapshot leaves out, and the whole tree when the project folder changed', () => {
    const excluded = (path: string): boolean => path.startsWith('.ralph/');
    expect(foldersToList(['src/a', 'src', 'src/a/b', 'lib', '.ralph', '.ralph/logs', 'src-x'], excluded)).toEqual(['lib', 'src', 'src-x']);
    expect(foldersToList([], excluded)).toEqual([]);
    expect(foldersToList(['src', ''], excluded)).toBeUndefined();
  });

  it("puts git's list of the changed folders where the last list held them, wherever they were", () => {
    const before = raw(['new/u.ts', 'src/a/x.ts', 'a.ts', 'src/a/y.ts', 'src/ab.ts', 'src/a/deep/z.ts', 'z.ts']);
    expect(paths(spliceListing(before, ['src/a'], raw(['src/a/w.ts', 'src/a/x.ts'])))).toEqual([
      'new/u.ts',
      'src/a/w.ts',
      'src/a/x.ts',
      'a.ts',
      'src/ab.ts',
      'z.ts',
    ]);
    expect(paths(spliceListing(before, ['new'], raw([])))).toEqual(['src/a/x.ts', 'a.ts', 'src/a/y.ts', 'src/ab.ts', 'src/a/deep/z.ts', 'z.ts']);
    expect(paths(spliceListing(before, ['other'], raw(['other/o.ts'])))).toEqual([...paths(before), 'other/o.ts']);
  });
});
