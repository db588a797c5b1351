// A snapshot made from the last one (the list decoded only where it changed, the id updated by
// the files that changed, the private index patched where its entries changed) is the snapshot a
// fresh snapshotter takes of the same tree, whatever a loop did: files added, removed, renamed,
// rewritten, staged or ignored. The private index is written in place only while it is the file
// ralph wrote last; anything else that wrote to it makes ralph write it whole again.

import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFs } from '../../../lib/analysis/content-entries.js';
import { createContentSnapshotter, type ContentSnapshotter, type SnapshotFs } from '../../../lib/analysis/content-snapshot.js';
import { disarmNestedRepositories, recordNestedRepositories } from '../../../lib/containment/git-disarm.js';
import { createFolderWalker, type FolderWalker } from '../../../lib/platform/folder-walk.js';
import { nodeProcessRunner, type ProcessRunner } from '../../../lib/platform/process.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

// The filesystem's clock a minute ahead: every file is old enough for the private index to vouch for it.
const AHEAD = () => Date.now() + 60_000;

function snapshotter(p: TmpProject, stateDir: string, more: { folders?: FolderWalker; processRunner?: ProcessRunner } = {}): ContentSnapshotter {
  return createContentSnapshotter({
    ...more,
    projectDir: p.dir,
    stateDir: p.path(stateDir),
    excluded: [{ path: '.ralph', directory: true }],
    processRunner: more.processRunner ?? nodeProcessRunner,
    env: process.env,
    clock: AHEAD,
    gitStatFrom: 0,
  });
}

/** Each listed file (tracked or untracked, not ignored, outside .ralph/) with its bytes, read afresh. */
function contents(p: TmpProject): Map<string, string> {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: p.dir, encoding: 'utf8' });
  const out = new Map<string, string>();
  for (const path of new Set(listed.split('\0'))) {
    if (path === '' || path.startsWith('.ralph/')) continue;
    try {
      out.set(path, readFileSync(p.path(path), 'utf8'));
    } catch {
      // listed from the index, gone from disk
    }
  }
  return out;
}

/** A small random number generator with a printed seed, so a failure can be replayed. */
function random(seed: number): (n: number) => number {
  let state = seed >>> 0 || 1;
  return (n) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

describe('a snapshot made from the last one', () => {
  it.each([
    ['the whole tree listed each time', false],
    ['git asked only about the folders that changed', true],
  ])('is the snapshot of the tree taken afresh, loop after loop of random changes (%s)', async (_, walked) => {
    const files: Record<string, string> = { '.gitignore': 'ignored/\n' };
    for (let i = 0; i < 60; i++) files[`src/d${i % 7}/f${i}.ts`] = `${i}\n`;
    const p = tmpProject(files, { git: true });
    project = p;
    const seed = Number(process.env.SNAPSHOT_SEED ?? Date.now() % 100_000);
    const pick = random(seed);
    // Folders changed in the same second as the walk are read again: the walk's clock is set ahead too.
    const live = snapshotter(p, '.ralph/live', walked ? { folders: createFolderWalker(p.dir, [], AHEAD) } : {});
    let last = await live.take();
    let before = contents(p);
    const write = (path: string, text: string): void => {
      mkdirSync(dirname(p.path(path)), { recursive: true });
      writeFileSync(p.path(path), text);
    };
    for (let loop = 0; loop < 12; loop++) {
      for (let k = 0; k < 1 + pick(4); k++) {
        const name = `src/d${pick(9)}/f${pick(80)}.ts`;
        const what = pick(6);
        if (what === 0) rmSync(p.path(name), { force: true });
        else if (what === 1) write(pick(2) ? `ignored/${name}` : '.gitignore', pick(2) ? 'ignored/\n' : 'ignored/\nsrc/d1/\n');
        else if (what === 2) p.git('add', '-A');
        else if (what === 3) rmSync(p.path(`src/d${pick(9)}`), { recursive: true, force: true });
        else if (what === 4) {
          write(name, `${loop}\n`);
          const to = `src/d${pick(9)}/moved${loop}.ts`;
          mkdirSync(dirname(p.path(to)), { recursive: true });
          renameSync(p.path(name), p.path(to));
        } else write(name, `${loop}-${k}\n`);
      }
      const now = await live.take();
      const fresh = await snapshotter(p, `.ralph/fresh-${loop}`).take();
      expect(now.id, `seed ${seed}, loop ${loop}`).toBe(fresh.id);
      const after = contents(p);
      const differ = [...new Set([...before.keys(), ...after.keys()])].filter((path) => before.get(path) !== after.get(path)).sort();
      expect(await live.changedPaths(last, now), `seed ${seed}, loop ${loop}`).toEqual(differ);
      last = now;
      before = after;
    }
  });

  it('after a snapshot that failed part way (its list and cache already moved), takes the next one afresh', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`src/d${i % 4}/f${i}.ts`] = `${i}\n`;
    const p = tmpProject(files, { git: true });
    project = p;
    let fail = false;
    const fs: SnapshotFs = {
      ...nodeFs,
      lstatSync: (path, options) => {
        if (fail && path.endsWith('/added.ts')) throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
        return nodeFs.lstatSync(path, options);
      },
    };
    const live = createContentSnapshotter({
      projectDir: p.dir,
      stateDir: p.path('.ralph/live'),
      excluded: [{ path: '.ralph', directory: true }],
      processRunner: nodeProcessRunner,
      clock: AHEAD,
      gitStatFrom: 0,
      fs,
      folders: createFolderWalker(p.dir, [], AHEAD),
    });
    await live.take();
    await live.take();
    writeFileSync(p.path('src/d1/added.ts'), 'new\n');
    appendFileSync(p.path('src/d2/f2.ts'), 'more\n');
    fail = true;
    await expect(live.take()).rejects.toThrow('EIO');
    fail = false;
    rmSync(p.path('src/d3/f3.ts'));
    const now = await live.take();
    expect(now.id).toBe((await snapshotter(p, '.ralph/fresh').take()).id);
    appendFileSync(p.path('src/d0/f0.ts'), 'more\n');
    const next = await live.take();
    expect(next.id).toBe((await snapshotter(p, '.ralph/fresh2').take()).id);
    expect(await live.changedPaths(now, next)).toEqual(['src/d0/f0.ts']);
  });

  it('patches its private index in place while nothing else wrote to it, and writes it whole when something did', async () => {
    const p = tmpProject({ 'a.ts': 'a\n', 'b.ts': 'b\n' }, { git: true });
    project = p;
    const snap = snapshotter(p, '.ralph/s');
    const index = p.path('.ralph/s/index');
    await snap.take();
    await snap.take();
    const written = statSync(index).ino;
    appendFileSync(p.path('a.ts'), 'more\n');
    const changed = await snap.take();
    expect(statSync(index).ino).toBe(written);
    // Something else writes the same bytes into it: ralph no longer trusts the file.
    writeFileSync(index, readFileSync(index));
    appendFileSync(p.path('b.ts'), 'more\n');
    const next = await snap.take();
    expect(statSync(index).ino).not.toBe(written);
    expect(await snap.changedPaths(changed, next)).toEqual(['b.ts']);
  });
});

describe('git asked only about the folders that changed', () => {
  function recorder(): { runner: ProcessRunner; listings: string[][]; asked: () => string[] } {
    const listings: string[][] = [];
    const others: string[] = [];
    const runner: ProcessRunner = {
      run: (command, args, options) => {
        others.push(args[0]!);
        return nodeProcessRunner.run(command, args, options);
      },
      start: (command, args, options) => {
        if (args.includes('ls-files')) listings.push(args.slice(args.indexOf('--exclude-standard') + 1));
        return nodeProcessRunner.start(command, args, options);
      },
    };
    return { runner, listings, asked: () => [...others] };
  }

  it('lists nothing when no folder changed or a file was only added, one folder when a file was removed there, and the whole tree when the index or an ignore file changed', async () => {
    const p = tmpProject({ '.gitignore': 'ignored/\n', 'a/x.ts': 'x\n', 'b/y.ts': 'y\n', 'b/deep/z.ts': 'z\n' }, { git: true });
    project = p;
    const { runner, listings } = recorder();
    const snap = snapshotter(p, '.ralph/s', { folders: createFolderWalker(p.dir, [], AHEAD), processRunner: runner });
    const check = async (expected: string[][]): Promise<void> => {
      listings.length = 0;
      const now = await snap.take();
      expect(listings).toEqual(expected);
      expect(now.id).toBe((await snapshotter(p, `.ralph/fresh-${Math.random()}`).take()).id);
    };
    await check([[]]);
    await check([[]]);
    writeFileSync(p.path('a/x.ts'), 'changed in place\n');
    await check([]);
    writeFileSync(p.path('b/deep/new.ts'), 'new\n');
    await check([]);
    rmSync(p.path('b/deep/new.ts'));
    await check([['--', ':(literal)b/deep/']]);
    rmSync(p.path('b/deep'), { recursive: true });
    await check([['--', ':(literal)b/']]);
    p.git('add', '-A');
    await check([[]]);
    writeFileSync(p.path('.gitignore'), 'ignored/\na/\n');
    await check([[]]);
    await check([]);
  });

  it('asks git about nothing on a small tree when no folder changed, once a run is past its first loops', async () => {
    const p = tmpProject({ 'a/x.ts': 'x\n', 'b/y.ts': 'y\n' }, { git: true });
    project = p;
    const { runner, listings, asked } = recorder();
    const snap = createContentSnapshotter({
      projectDir: p.dir,
      stateDir: p.path('.ralph/s'),
      excluded: [{ path: '.ralph', directory: true }],
      processRunner: runner,
      env: process.env,
      clock: AHEAD,
      folders: createFolderWalker(p.dir, [], AHEAD),
    });
    // A run of one or two loops (a snapshot at each loop's start and end) asks git nothing more than the listings.
    for (let i = 0; i < 3; i++) await snap.take();
    expect(asked()).toEqual([]);
    await snap.take();
    expect(asked()).toEqual(['rev-parse']);
    listings.length = 0;
    writeFileSync(p.path('a/x.ts'), 'changed in place\n');
    const changed = await snap.take();
    await snap.take();
    expect(listings).toEqual([]);
    expect(changed.id).toBe((await snapshotter(p, '.ralph/fresh').take()).id);
  });
});

describe('one walk of the tree a loop', () => {
  it("the snapshot after the disarm step takes that step's walk, and walks again when the step moved something", async () => {
    const p = tmpProject({ 'a/x.ts': 'x\n' }, { git: true });
    project = p;
    const elsewhere = mkdtempSync(join(tmpdir(), 'ralph-gitdir-'));
    const ctx = { projectDir: p.dir, env: process.env, processRunner: nodeProcessRunner };
    const known = await recordNestedRepositories(ctx);
    let walks = 0;
    const walk = known.walker.walk;
    known.walker.walk = () => (walks++, walk());
    const snap = snapshotter(p, '.ralph/s', { folders: known.walker });
    const fresh = async (): Promise<string | null> => (await snapshotter(p, `.ralph/fresh-${Math.random()}`).take()).id;
    try {
      await snap.take();
      writeFileSync(p.path('a/new.ts'), 'new\n');
      walks = 0;
      expect(await disarmNestedRepositories(ctx, known, '.ralph/quarantine/one')).toEqual([]);
      expect((await snap.take()).id).toBe(await fresh());
      expect(walks).toBe(1);
      // A gitfile leading out of the project is moved aside: the tree changed since the step's walk.
      mkdirSync(p.path('b'));
      writeFileSync(p.path('b/.git'), `gitdir: ${elsewhere}\n`);
      writeFileSync(p.path('b/y.ts'), 'y\n');
      walks = 0;
      expect((await disarmNestedRepositories(ctx, known, '.ralph/quarantine/two')).map((each) => each.repository)).toEqual(['b']);
      expect((await snap.take()).id).toBe(await fresh());
      expect(walks).toBe(2);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
