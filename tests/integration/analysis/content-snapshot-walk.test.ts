// The content snapshot after a call takes its stat check from the walk that cleared setuid bits
// after the call (one lstat per file, not two): that walk names every entry whose ctime is past
// the last snapshot's stamp, the folder walk names the folders that changed, and git's stat
// comparison is not run. The id is the one a fresh snapshotter takes of the same tree, whatever
// the agent did to hide a change: the same size and mtime put back (`touch -d`), a file renamed
// or hard-linked over another, a folder swapped for a link, in the same clock tick as the stamp.
// Where the walk cannot vouch (none was made, the tree changed after it, the clock went back, the
// project's own folder changed), git compares the stats as before.

import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFs } from '../../../lib/analysis/content-entries.js';
import type { SnapshotFs } from '../../../lib/analysis/content-snapshot.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { createTreeChanges } from '../../../lib/platform/tree-changes.js';
import { stripSetuidFiles } from '../../../lib/sandbox/strip-setuid.js';
import { rewriteUnseen, walkedSnapshots } from '../../helpers/walked-snapshots.js';
import type { TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

function setup(files: Record<string, string> = {}, fs?: SnapshotFs): ReturnType<typeof walkedSnapshots> {
  const s = walkedSnapshots(files, fs);
  project = s.p;
  return s;
}

describe('a snapshot after the walk that cleared setuid bits', () => {
  it("runs no git stat comparison: the walk's changed entries and the changed folders say what to look at", async () => {
    const s = setup();
    const first = await s.afterCall();
    // A loop more: the project's own folder, made just before the first, is older than the walk asks about.
    await s.afterCall();
    let last = first.id;
    const loops: Array<() => void> = [
      () => writeFileSync(s.p.path('src/d0/f0.ts'), 'export const v0 = 100;\n'),
      () => writeFileSync(s.p.path('src/d1/new.ts'), 'new\n'),
      () => unlinkSync(s.p.path('src/d2/f2.ts')),
      () => writeFileSync(s.p.path('ignored/x'), 'not content\n'),
    ];
    for (const act of loops) {
      act();
      const now = await s.afterCall();
      expect(now.diffFiles).toBe(0);
      expect(now.id).toBe(await s.freshId());
      last = now.id;
    }
    expect(last).not.toBe(first.id);
  });

  it('looks at the files right in a folder whose entries changed, not at every file below it', async () => {
    let lstats = 0;
    const counting: SnapshotFs = { ...nodeFs, lstatSync: (path, options) => (lstats++, nodeFs.lstatSync(path, options)) };
    const s = setup({}, counting);
    await s.afterCall();
    await s.afterCall();
    // A file added right in src/, above the 30 files of src/d0..d2.
    writeFileSync(s.p.path('src/top.ts'), 'top\n');
    lstats = 0;
    const after = await s.afterCall();
    expect(after).toEqual({ id: await s.freshId(), diffFiles: 0 });
    expect(lstats).toBeLessThan(5);
  });

  it('in a folder that is the same folder and lost no file, looks only at the files the walk named', async () => {
    let lstats = 0;
    const counting: SnapshotFs = { ...nodeFs, lstatSync: (path, options) => (lstats++, nodeFs.lstatSync(path, options)) };
    const s = setup({}, counting);
    await s.afterCall();
    await s.afterCall();
    // A file added beside the 10 files of src/d0, and one of them rewritten.
    writeFileSync(s.p.path('src/d0/new.ts'), 'new\n');
    writeFileSync(s.p.path('src/d0/f3.ts'), 'export const v3 = 33;\n');
    lstats = 0;
    const after = await s.afterCall();
    expect(after).toEqual({ id: await s.freshId(), diffFiles: 0 });
    expect(lstats).toBeLessThan(4);
    // A tracked file removed from it: every file of the folder is looked at.
    unlinkSync(s.p.path('src/d0/f6.ts'));
    lstats = 0;
    expect(await s.afterCall()).toEqual({ id: await s.freshId(), diffFiles: 0 });
    expect(lstats).toBeGreaterThanOrEqual(9);
  });

  it.each([
    [
      'a folder swapped for a copy made long before, of the same names, sizes and times, one file different',
      (p: TmpProject) => {
        renameSync(p.path('src/d1'), p.path('ignored/d1-old'));
        renameSync(p.path('ignored/d1-copy'), p.path('src/d1'));
      },
    ],
    ['the same size and times put back, in the same clock tick as the stamp', (p: TmpProject) => rewriteUnseen(p, 'src/d0/f3.ts', 'export const v3 = 9;\n')],
    [
      'a file renamed over another of the same size and times',
      (p: TmpProject) => {
        writeFileSync(p.path('src/d0/f3.tmp'), 'export const v3 = 7;\n');
        const old = statSync(p.path('src/d0/f3.ts'));
        utimesSync(p.path('src/d0/f3.tmp'), old.atime, old.mtime);
        renameSync(p.path('src/d0/f3.tmp'), p.path('src/d0/f3.ts'));
      },
    ],
    [
      'a file replaced by a hard link to another file of the same size, made in an ignored folder long before',
      (p: TmpProject) => {
        unlinkSync(p.path('src/d1/f4.ts'));
        linkSync(p.path('ignored/twin'), p.path('src/d1/f4.ts'));
      },
    ],
    ['a file written through a hard link kept in an ignored folder', (p: TmpProject) => rewriteUnseen(p, 'ignored/f5-link', 'export const v5 = 8;\n')],
    [
      'a folder swapped for a link to a copy of it with one file changed',
      (p: TmpProject) => {
        execFileSync('cp', ['-a', p.path('src/d2'), p.path('ignored/d2')]);
        rewriteUnseen(p, 'ignored/d2/f8.ts', 'export const v8 = 1;\n');
        rmSync(p.path('src/d2'), { recursive: true });
        symlinkSync('../ignored/d2', p.path('src/d2'));
      },
    ],
    ['a file of a nested repository rewritten unseen', (p: TmpProject) => rewriteUnseen(p, 'vendor/lib/code.ts', 'lib 2\n')],
  ])('sees a change the agent hid: %s', async (_, act) => {
    const s = setup({ 'ignored/twin': 'export const v4 = 6;\n', 'vendor/lib/code.ts': 'lib 1\n' });
    // A copy of src/d1 with the same names, sizes and times, and one file's bytes different.
    execFileSync('cp', ['-a', s.p.path('src/d1'), s.p.path('ignored/d1-copy')]);
    rewriteUnseen(s.p, 'ignored/d1-copy/f4.ts', 'export const v4 = 5;\n');
    execFileSync('git', ['init', '-q'], { cwd: s.p.path('vendor/lib') });
    linkSync(s.p.path('src/d2/f5.ts'), s.p.path('ignored/f5-link'));
    const first = await s.afterCall();
    await s.afterCall();
    // A loop in which nothing changed: the walk vouches for every file.
    expect(await s.afterCall()).toEqual({ id: first.id, diffFiles: 0 });
    act(s.p);
    const after = await s.afterCall();
    expect(after.id).not.toBe(first.id);
    expect(after.id).toBe(await s.freshId());
    // And the loop after it, the change now settled, still sees the tree as it is.
    const next = await s.afterCall();
    expect(next.id).toBe(after.id);
  });

  it('sees a change behind a folder that was a link when the run started (git lists the files its index holds there)', async () => {
    const s = setup();
    // src/d0/ is now a link to an ignored copy: its files are still in git's index, reached through the link.
    execFileSync('cp', ['-a', s.p.path('src/d0'), s.p.path('ignored/d0')]);
    rmSync(s.p.path('src/d0'), { recursive: true });
    symlinkSync('../ignored/d0', s.p.path('src/d0'));
    const first = await s.afterCall();
    expect(first.id).toBe(await s.freshId());
    await s.afterCall();
    rewriteUnseen(s.p, 'ignored/d0/f0.ts', 'export const v0 = 5;\n');
    const after = await s.afterCall();
    expect(after.id).toBe(await s.freshId());
    expect(after.id).not.toBe(first.id);
  });

  it('falls back to git where the walk cannot vouch: no walk made, a clock gone back, a step changed the tree after it, the project folder changed', async () => {
    const s = setup();
    await s.afterCall();
    const change = (n: number) => writeFileSync(s.p.path('src/d0/f0.ts'), `changed ${n}\n`);
    change(1);
    expect(await s.afterCall({ sweep: false })).toMatchObject({ diffFiles: 1 });
    change(22);
    await stripSetuidFiles(s.p.dir, { processRunner: nodeProcessRunner, changes: s.changes });
    s.changes.stale();
    expect(await s.afterCall({ sweep: false })).toMatchObject({ diffFiles: 1 });
    // A loop the walk vouches for, then one whose stamp is older than the last.
    expect(await s.afterCall()).toMatchObject({ diffFiles: 0 });
    change(333);
    s.back.ms = 5000;
    expect(await s.afterCall()).toMatchObject({ diffFiles: 1 });
    s.back.ms = 0;
    writeFileSync(s.p.path('top.ts'), 'top\n');
    const top = await s.afterCall();
    expect(top.diffFiles).toBe(1);
    expect(top.id).toBe(await s.freshId());
  });

  it('a walk naming far more entries than files listed (a dependency installed in an ignored folder) leaves the comparison to git', async () => {
    const s = setup();
    await s.afterCall();
    await s.afterCall();
    mkdirSync(s.p.path('ignored/node_modules'));
    for (let i = 0; i < 10_100; i++) writeFileSync(s.p.path(`ignored/node_modules/m${i}.js`), '');
    writeFileSync(s.p.path('src/d0/f0.ts'), 'changed\n');
    const after = await s.afterCall();
    expect(after).toEqual({ id: await s.freshId(), diffFiles: 1 });
  });

  it('a clock stepped back between the request and the walk drops the walk', async () => {
    let wall = 1_000_000;
    const changes = createTreeChanges({ wall: () => wall, monotonic: () => 0 });
    changes.want(5);
    wall -= 1000;
    changes.post({ since: 5, entries: [], startedAt: wall });
    expect(changes.take()).toBeUndefined();
    changes.want(6);
    changes.post({ since: 6, entries: ['a'], startedAt: wall });
    expect(changes.take()).toEqual({ since: 6, entries: ['a'], startedAt: wall });
    expect(changes.take()).toBeUndefined();
    // A walk for another request than the latest is not taken.
    changes.want(7);
    changes.post({ since: 6, entries: [], startedAt: wall });
    expect(changes.take()).toBeUndefined();
  });
});

describe('a name that is no UTF-8', () => {
  it('is looked at afresh each loop, as with git', async () => {
    const s = setup();
    const name = Buffer.concat([Buffer.from(`${s.p.dir}/src/d0/bad-`), Buffer.from([0xff])]);
    writeFileSync(name, 'one\n');
    const first = await s.afterCall();
    expect(first.id).toBe(await s.freshId());
    writeFileSync(name, 'two\n');
    const after = await s.afterCall();
    expect(after.id).toBe(await s.freshId());
  });
});
