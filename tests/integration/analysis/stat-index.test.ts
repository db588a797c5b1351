// The content snapshot's private index, read by real git: entries in git's byte order with the
// stat data ralph wrote, zeroed entries always reported, an empty file matched, and no clean
// filter run even for an entry git would otherwise take for racily clean (the file's mtime is 0).

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { buildStatIndex, changedByGit, compareBytes, filesIn, indexable, setIndexEntry, writeStatIndex } from '../../../lib/analysis/stat-index.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

function setup(tree: Record<string, string>): { p: TmpProject; indexFile: string } {
  const p = tmpProject({ '.ralph/.content/.gitignore': '*\n', ...tree }, { git: true });
  project = p;
  return { p, indexFile: p.path('.ralph/.content/index') };
}

/** git with the private index in place of the user's. */
function gitIndexed(p: TmpProject, indexFile: string, args: string[]): string {
  return execFileSync('git', args, { cwd: p.dir, env: { ...process.env, ...GIT_TEST_ENV, GIT_INDEX_FILE: indexFile }, encoding: 'utf8' });
}

describe('the private stat index', () => {
  it("holds its entries in git's byte order, and git finds the files written with their stats unchanged", async () => {
    const names = ['b.txt', 'a b.txt', 'é.txt', '\u{1F600}.txt', '\uE000.txt', 'run.sh', 'empty', 'dir/z.txt'];
    const { p, indexFile } = setup(Object.fromEntries(names.map((n) => [n, n === 'empty' ? '' : `${n}\n`])));
    chmodSync(p.path('run.sh'), 0o755);
    symlinkSync('b.txt', p.path('link'));
    const paths = [...names, 'link', 'nested/'];
    const index = buildStatIndex(paths, '', 20);
    paths.forEach((path, i) => path !== 'nested/' && setIndexEntry(index, i, lstatSync(p.path(path))));
    writeStatIndex(indexFile, index);
    expect(statSync(indexFile).mtimeMs).toBe(0);
    const listed = gitIndexed(p, indexFile, ['ls-files', '-z', '-s']).split('\0').filter(Boolean);
    const bytesOrder = paths.filter((path) => !path.endsWith('/')).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(listed.map((line) => line.split('\t')[1])).toEqual(bytesOrder);
    expect(listed.find((line) => line.endsWith('\trun.sh'))).toMatch(/^100755 /);
    expect(listed.find((line) => line.endsWith('\tlink'))).toMatch(/^120000 /);
    expect(await changedByGit(index, indexFile, { processRunner: nodeProcessRunner, cwd: p.dir, env: process.env })).toEqual([]);
    // A change, and an entry set back to zeros, are named (as indexes into the paths).
    writeFileSync(p.path('b.txt'), 'changed size\n');
    setIndexEntry(index, paths.indexOf('empty'), undefined);
    writeStatIndex(indexFile, index);
    const changed = await changedByGit(index, indexFile, { processRunner: nodeProcessRunner, cwd: p.dir, env: process.env });
    expect(changed?.map((i) => paths[i]).sort()).toEqual(['b.txt', 'empty']);
  });

  it('makes git run no clean filter, even for an entry it would take for racily clean', async () => {
    const { p, indexFile } = setup({ 'a.txt': 'a\n' });
    const marker = p.path('.git/filter-ran');
    p.git('config', 'filter.mine.clean', `sh -c 'touch "${marker}"; cat'`);
    writeFileSync(p.path('.gitattributes'), '* filter=mine\n');
    // An mtime an hour ahead: later than any index written now, so git would re-read the file.
    const later = new Date(Date.now() + 3_600_000);
    utimesSync(p.path('a.txt'), later, later);
    const index = buildStatIndex(['a.txt'], '', 20);
    setIndexEntry(index, 0, lstatSync(p.path('a.txt')));
    writeStatIndex(indexFile, index);
    expect(await changedByGit(index, indexFile, { processRunner: nodeProcessRunner, cwd: p.dir, env: process.env })).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  it("vouches only for stats older than the stamp's second", () => {
    const stat = (ctimeMs: number, mtimeMs: number, file = true) => ({
      ctimeMs,
      mtimeMs,
      dev: 1,
      ino: 1,
      mode: 0o100644,
      uid: 0,
      gid: 0,
      size: 1,
      isFile: () => file,
      isSymbolicLink: () => false,
    });
    expect(indexable(stat(9_999, 9_000), 10_500)).toBe(true);
    expect(indexable(stat(10_100, 9_000), 10_500)).toBe(false);
    expect(indexable(stat(9_000, 10_000), 10_500)).toBe(false);
    expect(indexable(stat(9_000, 9_000, false), 10_500)).toBe(false);
  });

  it('orders names as their UTF-8 bytes do', () => {
    const names = ['b', 'a', 'ab', '\uE000', '\u{1F600}', '\uFFFD', 'é'];
    const expected = [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect([...names].sort(compareBytes)).toEqual(expected);
  });
});

describe('the files right in a folder, found in the index', () => {
  it('are the entries of the folder itself, its subfolders skipped, whatever sorts around them', () => {
    const paths = ['a.b', 'a/x', 'a/y/z', 'a/y/zz/deep', 'a/y0', 'a/z', 'a/é', 'a/😀', 'a-b/c', 'a0', 'b/a/x', 'top'];
    for (const prefix of ['', 'sub/']) {
      const index = buildStatIndex(paths, prefix, 20);
      const names = (start: string) =>
        filesIn(index, `${prefix}${start}`)
          .map((i) => paths[i])
          .sort();
      expect(names('a/')).toEqual(['a/x', 'a/y0', 'a/z', 'a/é', 'a/😀'].sort());
      expect(names('a/y/')).toEqual(['a/y/z']);
      expect(names('b/')).toEqual([]);
      expect(names('c/')).toEqual([]);
    }
  });
});
