// A file added right in a folder is listed without git's list of that folder (which reads the
// whole index): git's ignore rules are asked about the new files alone, without the index. The
// snapshot is the one a fresh snapshotter takes of the same tree, and where the folder's
// listing cannot be told that way (a file gone, a new folder, a new ignore file, a nested
// repository, a name that differs from a listed one only in case) git lists the folder.

import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createContentSnapshotter } from '../../../lib/analysis/content-snapshot.js';
import { folderReader, listedChildren, ListedFolders } from '../../../lib/analysis/added-files.js';
import { nodeFs, type SnapshotFs } from '../../../lib/analysis/content-entries.js';
import { createFolderWalker } from '../../../lib/platform/folder-walk.js';
import { nodeProcessRunner, type ProcessRunner } from '../../../lib/platform/process.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

// The filesystem's clock a minute ahead: every file is old enough to be vouched for.
const AHEAD = () => Date.now() + 60_000;

function setup() {
  const p = tmpProject(
    {
      '.gitignore': 'ignored/\n*.log\n/x/\n',
      'a/x.ts': 'x\n',
      'a/y.ts': 'y\n',
      'b/z.ts': 'z\n',
      'ignored/old': 'old\n',
      'vendor/lib/code.ts': 'lib\n',
      ':(top)x/old.ts': 'old\n',
    },
    { git: true },
  );
  execFileSync('git', ['init', '-q'], { cwd: p.path('vendor/lib') });
  project = p;
  const calls: Array<{ args: string[]; input: string }> = [];
  const runner: ProcessRunner = {
    run: (command, args, options) => nodeProcessRunner.run(command, args, options),
    start: (command, args, options) => {
      if (command === 'git') calls.push({ args: [...args], input: String(options?.input ?? '') });
      return nodeProcessRunner.start(command, args, options);
    },
  };
  const options = { excluded: [{ path: '.ralph', directory: true }], env: process.env, clock: AHEAD, gitStatFrom: 0 };
  const snap = createContentSnapshotter({
    ...options,
    projectDir: p.dir,
    stateDir: p.path('.ralph/s'),
    processRunner: runner,
    folders: createFolderWalker(p.dir, [], AHEAD),
  });
  let fresh = 0;
  return {
    p,
    /** A snapshot: its id, the folders git listed (pathspecs) and the paths git's ignore rules were asked about. */
    async take() {
      calls.length = 0;
      const { id } = await snap.take();
      const listed = calls.filter((c) => c.args.includes('ls-files')).map((c) => c.args.slice(c.args.indexOf('--') + 1));
      const asked = calls.filter((c) => c.args.includes('check-ignore')).map((c) => c.input.split('\0').filter(Boolean));
      return { id, listed, asked };
    },
    async freshId() {
      const other = createContentSnapshotter({ ...options, projectDir: p.dir, stateDir: p.path(`.ralph/fresh${fresh++}`), processRunner: nodeProcessRunner });
      return (await other.take()).id;
    },
  };
}

describe('files added right in a folder', () => {
  it('are listed without git listing the folder: only the new files go to its ignore rules, which leave out the ignored ones', async () => {
    const s = setup();
    // Past the first snapshots, once the repository's layout (the index, the ignore files) is known.
    for (let i = 0; i < 4; i++) await s.take();
    const steps: Array<[() => void, string[][]]> = [
      [() => writeFileSync(s.p.path('a/new.ts'), 'new\n'), [['a/new.ts']]],
      [() => writeFileSync(s.p.path('a/debug.log'), 'ignored by a pattern\n'), [['a/debug.log']]],
      // An ignored folder's files were never listed: each is asked about, once.
      [() => writeFileSync(s.p.path('ignored/more'), 'in an ignored folder\n'), [['ignored/more', 'ignored/old']]],
      [() => writeFileSync(s.p.path('ignored/again'), 'in an ignored folder\n'), [['ignored/again']]],
      [() => (writeFileSync(s.p.path('a/two.ts'), '2\n'), writeFileSync(s.p.path('b/three.ts'), '3\n')), [['a/two.ts', 'b/three.ts']]],
    ];
    for (const [act, asked] of steps) {
      act();
      const now = await s.take();
      expect(now).toEqual({ id: await s.freshId(), listed: [], asked });
    }
    // Nothing changed since: nothing is asked.
    expect(await s.take()).toMatchObject({ listed: [], asked: [] });
  });

  it.each([
    ['a file removed', (p: TmpProject) => rmSync(p.path('a/y.ts')), ['a/']],
    ['a new folder', (p: TmpProject) => (mkdirSync(p.path('a/sub')), writeFileSync(p.path('a/sub/n.ts'), 'n\n')), ['a/']],
    ['a new ignore file', (p: TmpProject) => writeFileSync(p.path('b/.gitignore'), 'z.ts\n'), ['b/']],
    ['a name that differs from a listed one only in case', (p: TmpProject) => writeFileSync(p.path('a/X.ts'), 'X\n'), ['a/']],
    ['a file added in a nested repository', (p: TmpProject) => writeFileSync(p.path('vendor/lib/more.ts'), 'more\n'), ['vendor/lib/']],
    // git reads a path that begins with `:` as pathspec magic (here: `x/new.ts` from the top, which `/x/` ignores).
    ['a file added in a folder whose name begins with a colon', (p: TmpProject) => writeFileSync(p.path(':(top)x/new.ts'), 'new\n'), [':(top)x/']],
  ])('are left to git where it must list the folder: %s', async (_, act, listed) => {
    const s = setup();
    for (let i = 0; i < 4; i++) await s.take();
    act(s.p);
    const now = await s.take();
    expect(now.listed).toEqual([listed.map((dir) => `:(literal)${dir}`)]);
    expect(now.id).toBe(await s.freshId());
  });

  it('reads a changed folder once a loop: the entries the folder walk read are the ones looked at', async () => {
    const s = setup();
    const walker = createFolderWalker(s.p.dir, [], AHEAD);
    walker.walk();
    writeFileSync(s.p.path('a/new.ts'), 'new\n');
    walker.walk();
    let reads = 0;
    const fs: SnapshotFs = { ...nodeFs, readdirSync: (path, options) => (reads++, nodeFs.readdirSync(path, options)) };
    const read = folderReader(s.p.dir, walker, fs);
    expect(
      read('a')
        ?.map((entry) => entry.name)
        .sort(),
    ).toEqual(['new.ts', 'x.ts', 'y.ts']);
    expect(reads).toBe(0);
    // A folder the latest walk did not read again is read here.
    expect(read('b')?.map((entry) => entry.name)).toEqual(['z.ts']);
    expect(reads).toBe(1);
  });

  it("reads a folder's listed names from the list's bytes: files, folders, and none for a folder git lists whole", () => {
    const list = Buffer.from(['a/x.ts', 'ab/y.ts', 'a/deep/z.ts', 'b/a/w.ts', 'a/é.ts', ''].join('\0'));
    expect(listedChildren(list, 'a')).toEqual(
      new Map([
        ['x.ts', 'file'],
        ['deep', 'folder'],
        ['é.ts', 'file'],
      ]),
    );
    expect(listedChildren(Buffer.from('v/\0v/x\0'), 'v')).toBeUndefined();
  });

  it("reads a folder's listed names from the list once while the list only grows by the files added to it", () => {
    let reads = 0;
    const folders = new ListedFolders((list, dir) => (reads++, listedChildren(list, dir)));
    const first = Buffer.from('a/x.ts\0a/y.ts\0b/z.ts\0');
    expect([...folders.of(first, 'a')!.keys()]).toEqual(['x.ts', 'y.ts']);
    const second = Buffer.concat([first, Buffer.from('a/new.ts\0')]);
    folders.grown(first, second, ['a/new.ts']);
    expect([...folders.of(second, 'a')!.keys()]).toEqual(['x.ts', 'y.ts', 'new.ts']);
    expect(reads).toBe(1);
    // Any other list (git listed a folder again) is read again.
    expect([...folders.of(Buffer.from('a/x.ts\0'), 'a')!.keys()]).toEqual(['x.ts']);
    expect(reads).toBe(2);
  });
});
