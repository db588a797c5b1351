// Content snapshots in real git: one id for the working tree as it is on disk (tracked, staged,
// untracked, committed), without ralph's control and state files or ignored files; the user's
// index is never touched, nothing is written into .git and no filter or fsmonitor runs; after the
// first snapshot git names the files whose stat changed (against ralph's private index) and only
// those are stat'ed; a folder without a repository works too.

import * as nodeFs from 'node:fs';
import {
  appendFileSync,
  chmodSync,
  renameSync,
  rmSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createContentSnapshotter, type ContentSnapshotter, type SnapshotFs } from '../../../lib/analysis/content-snapshot.js';
import { exclusionTest } from '../../../lib/analysis/snapshot-exclusions.js';
import { nodeProcessRunner, type ProcessRunner } from '../../../lib/platform/process.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

const CONTROL = [
  { path: '.ralph', directory: true },
  { path: '.ralphrc', directory: false },
  { path: 'docs/PROMPT.md', directory: false },
];

// The filesystem's clock a minute ahead: every file a test made is old enough for git's
// whole-second stat comparison to vouch for it.
const AHEAD = () => Date.now() + 60_000;

function setup(
  git = true,
  processRunner: ProcessRunner = nodeProcessRunner,
  fs?: SnapshotFs,
  // gitStatFrom: git compares the stats from this many files (0 unless given; null: ralph's default).
  more: { clock?: () => number; projectDir?: string; gitStatFrom?: number | null } = {},
): { p: TmpProject; snap: ContentSnapshotter; id: () => Promise<string | null> } {
  const p = tmpProject(
    {
      'src/a.ts': 'a\n',
      'README.md': '# r\n',
      '.ralph/fix_plan.md': '- [ ] x\n',
      '.ralph/AGENT.md': '# agent\n',
      '.ralphrc': 'X=1\n',
      'docs/PROMPT.md': '# prompt\n',
      '.gitignore': 'ignored/\n.ralph/.*\n',
    },
    { git },
  );
  project = p;
  const snap = createContentSnapshotter({
    projectDir: more.projectDir ? p.path(more.projectDir) : p.dir,
    stateDir: p.path('.ralph/.content'),
    excluded: CONTROL,
    processRunner,
    env: process.env,
    ...(fs ? { fs } : {}),
    ...(more.clock ? { clock: more.clock } : {}),
    ...(more.gitStatFrom === null ? {} : { gitStatFrom: more.gitStatFrom ?? 0 }),
  });
  return { p, snap, id: async () => (await snap.take()).id };
}

describe('content snapshots', () => {
  it('change with tracked, staged, untracked and committed changes, and name the changed files', async () => {
    const { p, snap } = setup();
    const start = await snap.take();
    expect(start.id).toMatch(/^[0-9a-f]{40}$/);
    appendFileSync(p.path('src/a.ts'), 'more\n');
    writeFileSync(p.path('src/new file.ts'), 'new\n');
    writeFileSync(p.path('staged.ts'), 's\n');
    p.git('add', 'staged.ts');
    writeFileSync(p.path('README.md'), '# changed\n');
    p.git('commit', '-q', '-m', 'readme', '--', 'README.md');
    const end = await snap.take();
    expect(end.id).not.toBe(start.id);
    expect(await snap.changedPaths(start, end)).toEqual(['README.md', 'src/a.ts', 'src/new file.ts', 'staged.ts']);
    // The same list when the snapshots are not consecutive.
    expect(await snap.changedPaths(start, { ...end, since: undefined })).toEqual(['README.md', 'src/a.ts', 'src/new file.ts', 'staged.ts']);
  });

  it('names files with newlines, quotes and leading dashes', async () => {
    const { p, snap } = setup();
    const names = ['-rf', 'new\nline.txt', `it's "q".txt`, 'a b.txt'];
    const start = await snap.take();
    for (const n of names) writeFileSync(p.path(n), n);
    expect(await snap.changedPaths(start, await snap.take())).toEqual([...names].sort());
  });

  it('sees a change to a file it may not read (ralph not root: the agent took the read permission of its own file)', async () => {
    // What ralph run as the file's owner meets: the open refused (root is never refused).
    const closed: SnapshotFs = {
      ...nodeFs,
      openSync: (path, flags) => {
        if (String(path).endsWith('/src/a.ts')) throw Object.assign(new Error(`EACCES: permission denied, open '${String(path)}'`), { code: 'EACCES' });
        return nodeFs.openSync(path, flags);
      },
    };
    const { p, id } = setup(true, nodeProcessRunner, closed);
    const before = await id();
    // The same size and times put back: only its ctime tells.
    const st = statSync(p.path('src/a.ts'));
    writeFileSync(p.path('src/a.ts'), 'b\n');
    utimesSync(p.path('src/a.ts'), st.atime, st.mtime);
    const after = await id();
    expect(after).not.toBe(before);
    // Unchanged, it keeps its id.
    expect(await id()).toBe(after);
  });

  it('a commit of what was already on disk does not change the content', async () => {
    const { p, id } = setup();
    writeFileSync(p.path('src/b.ts'), 'b\n');
    const before = await id();
    p.git('add', '-A');
    p.git('commit', '-q', '-m', 'b');
    expect(await id()).toBe(before);
  });

  it('touch, or writing the same bytes again, does not change the content; a mode change does', async () => {
    const { p, id } = setup();
    appendFileSync(p.path('src/a.ts'), 'dirty\n');
    const dirty = await id();
    utimesSync(p.path('src/a.ts'), new Date(), new Date(Date.now() + 5000));
    writeFileSync(p.path('src/a.ts'), readFileSync(p.path('src/a.ts')));
    expect(await id()).toBe(dirty);
    chmodSync(p.path('src/a.ts'), 0o755);
    expect(await id()).not.toBe(dirty);
  });

  it('returns to the same id when a file flips back to its earlier content', async () => {
    const { p, id } = setup();
    const first = await id();
    writeFileSync(p.path('src/a.ts'), 'b\n');
    const second = await id();
    writeFileSync(p.path('src/a.ts'), 'a\n');
    expect(await id()).toBe(first);
    expect(second).not.toBe(first);
  });

  it('leaves out ralph state, control files (tracked or not), the configured prompt and ignored files', async () => {
    const { p, id } = setup();
    const start = await id();
    writeFileSync(p.path('.ralph/fix_plan.md'), '- [x] x\n- [ ] y\n');
    appendFileSync(p.path('.ralph/AGENT.md'), 'more notes\n');
    writeFileSync(p.path('.ralph/status.json'), '{}');
    writeFileSync(p.path('.ralph/.call_count'), '3');
    mkdirSync(p.path('.ralph/specs'), { recursive: true });
    writeFileSync(p.path('.ralph/specs/new.md'), 'spec');
    writeFileSync(p.path('.ralphrc'), 'X=2\n');
    writeFileSync(p.path('docs/PROMPT.md'), '# other prompt\n');
    mkdirSync(p.path('ignored'));
    writeFileSync(p.path('ignored/build.log'), 'x');
    expect(await id()).toBe(start);
    p.git('add', '-A');
    p.git('commit', '-q', '-m', 'control files');
    expect(await id()).toBe(start);
  });

  it('leaves out control files even when .gitignore ignores them', async () => {
    const { p, id } = setup();
    writeFileSync(p.path('.gitignore'), '.ralph/\n.ralphrc\ndocs/PROMPT.md\n');
    const start = await id();
    expect(start).not.toBeNull();
    writeFileSync(p.path('src/a.ts'), 'changed\n');
    expect(await id()).not.toBe(start);
  });

  it('keeps its private index out of git status even where .gitignore does not name it', async () => {
    const { p, id } = setup();
    writeFileSync(p.path('.gitignore'), 'ignored/\n');
    await id();
    expect(p.git('status', '--porcelain', '--untracked-files=all')).not.toContain('.content');
  });

  it('never touches the user index', async () => {
    const { p, id } = setup();
    writeFileSync(p.path('untracked.ts'), 'u\n');
    appendFileSync(p.path('src/a.ts'), 'x\n');
    const index = readFileSync(join(p.dir, '.git', 'index'));
    const status = p.git('status', '--porcelain');
    await id();
    await id();
    expect(readFileSync(join(p.dir, '.git', 'index')).equals(index)).toBe(true);
    expect(p.git('status', '--porcelain')).toBe(status);
  });

  it('costs one git call (ls-files) in a small project, whether or not something changed', async () => {
    const calls: string[] = [];
    const counting: ProcessRunner = {
      run: (command, args, options) => (
        calls.push(args.find((a, k) => !a.startsWith('-') && args[k - 1] !== '-c') ?? ''),
        nodeProcessRunner.run(command, args, options)
      ),
      start: (command, args, options) => (
        calls.push(args.find((a, k) => !a.startsWith('-') && args[k - 1] !== '-c') ?? ''),
        nodeProcessRunner.start(command, args, options)
      ),
    };
    const { p, snap } = setup(true, counting, undefined, { gitStatFrom: null });
    await snap.take();
    calls.length = 0;
    await snap.take();
    expect(calls).toEqual(['ls-files']);
    calls.length = 0;
    appendFileSync(p.path('src/a.ts'), 'more\n');
    await snap.take();
    expect(calls).toEqual(['ls-files']);
  });

  it('costs two git calls (ls-files, and diff-files against its private index) whether or not something changed', async () => {
    const calls: string[] = [];
    // The subcommand: the first word that is no option of git's own (`-c key=value`).
    const subcommand = (args: readonly string[]): string => args.find((a, k) => !a.startsWith('-') && args[k - 1] !== '-c') ?? '';
    const counting: ProcessRunner = {
      run: (command, args, options) => (calls.push(subcommand(args)), nodeProcessRunner.run(command, args, options)),
      start: (command, args, options) => (calls.push(subcommand(args)), nodeProcessRunner.start(command, args, options)),
    };
    const { p, snap } = setup(true, counting);
    await snap.take();
    // The first also asks where the project is in the repository.
    expect(calls.sort()).toEqual(['ls-files', 'rev-parse']);
    calls.length = 0;
    await snap.take();
    expect(calls.sort()).toEqual(['diff-files', 'ls-files']);
    calls.length = 0;
    appendFileSync(p.path('src/a.ts'), 'more\n');
    await snap.take();
    expect(calls.sort()).toEqual(['diff-files', 'ls-files']);
  });

  it('writes nothing into .git, whatever the files weigh', async () => {
    const { p, id } = setup();
    await id();
    const before = listTree(p.path('.git'));
    writeFileSync(p.path('big.bin'), Buffer.alloc(3 << 20, 7));
    const first = await id();
    writeFileSync(p.path('big.bin'), Buffer.alloc(3 << 20, 8));
    expect(await id()).not.toBe(first);
    expect(listTree(p.path('.git'))).toEqual(before);
  });

  it("runs no clean filter, not even the user's own, and reads the bytes as they are on disk", async () => {
    const { p, id } = setup();
    const marker = p.path('.git/filter-ran');
    p.git('config', 'filter.mine.clean', `sh -c 'touch "${marker}"; tr a b'`);
    writeFileSync(p.path('.git/info/attributes'), '* filter=mine\n');
    const start = await id();
    writeFileSync(p.path('src/a.ts'), 'b\n');
    expect(await id()).not.toBe(start);
    expect(existsSync(marker)).toBe(false);
  });

  it("runs no fsmonitor, not even the user's own", async () => {
    const { p, id } = setup();
    const marker = p.path('.git/fsmonitor-ran');
    writeFileSync(p.path('.git/fsmonitor.sh'), `#!/bin/sh\ntouch "${marker}"\nexit 1\n`);
    chmodSync(p.path('.git/fsmonitor.sh'), 0o755);
    p.git('config', 'core.fsmonitor', p.path('.git/fsmonitor.sh'));
    p.git('status', '--porcelain');
    rmSync(marker, { force: true });
    const start = await id();
    writeFileSync(p.path('src/a.ts'), 'b\n');
    expect(await id()).not.toBe(start);
    expect(existsSync(marker)).toBe(false);
  });

  it('sees a same-size rewrite whose mtime was set back (the stat cache keys on ctime and inode too)', async () => {
    const { p, id } = setup();
    const file = p.path('src/a.ts');
    const start = await id();
    const { atime, mtime } = statSync(file);
    writeFileSync(file, 'z\n');
    utimesSync(file, atime, mtime);
    expect(await id()).not.toBe(start);
  });

  it('skips a fifo without opening it', async () => {
    const { p, id } = setup();
    const start = await id();
    execFileSync('mkfifo', [p.path('pipe')]);
    expect(await id()).toBe(start);
  });

  it('stats and reads no file for an unchanged tree, and only the changed file after a change', async () => {
    const calls = { lstat: 0, open: 0, readlink: 0 };
    const counting: SnapshotFs = {
      lstatSync: (path, options) => (calls.lstat++, nodeFs.lstatSync(path, options)),
      openSync: (path, flags) => (calls.open++, nodeFs.openSync(path, flags)),
      readSync: (fd, buffer, offset, length, position) => nodeFs.readSync(fd, buffer, offset, length, position),
      closeSync: (fd) => nodeFs.closeSync(fd),
      readlinkSync: (path) => (calls.readlink++, nodeFs.readlinkSync(path)),
      readdirSync: (path, options) => nodeFs.readdirSync(path, options),
    };
    const { p, snap } = setup(true, nodeProcessRunner, counting, { clock: AHEAD });
    const first = await snap.take();
    expect(calls.open).toBeGreaterThan(0);
    Object.assign(calls, { lstat: 0, open: 0, readlink: 0 });
    const same = await snap.take();
    expect(same.id).toBe(first.id);
    expect(same.since).toEqual({ id: first.id, changed: [] });
    // git compared the stats: ralph stat'ed nothing (src/a.ts, README.md, .gitignore are listed).
    expect(calls).toEqual({ lstat: 0, open: 0, readlink: 0 });
    appendFileSync(p.path('src/a.ts'), 'more\n');
    const changed = await snap.take();
    expect(changed.id).not.toBe(first.id);
    expect(changed.since).toEqual({ id: first.id, changed: ['src/a.ts'] });
    expect(calls).toEqual({ lstat: 1, open: 1, readlink: 0 });
  });

  it('stats a file listed since its private index was built until many are, then builds it again', async () => {
    let lstats = 0;
    const counting: SnapshotFs = { ...nodeFs, lstatSync: (path, options) => (lstats++, nodeFs.lstatSync(path, options)) };
    const { p, snap } = setup(true, nodeProcessRunner, counting, { clock: AHEAD });
    await snap.take();
    await snap.take();
    writeFileSync(p.path('src/new.ts'), 'new\n');
    await snap.take();
    lstats = 0;
    await snap.take();
    expect(lstats).toBe(1);
    mkdirSync(p.path('many'));
    for (let i = 0; i < 300; i++) writeFileSync(p.path(`many/${i}.ts`), `${i}\n`);
    await snap.take();
    lstats = 0;
    const same = await snap.take();
    expect(lstats).toBe(0);
    expect(same.since?.changed).toEqual([]);
  });

  it('stats only what git names in a project below the repository top, and names paths from the project', async () => {
    let lstats = 0;
    const counting: SnapshotFs = { ...nodeFs, lstatSync: (path, options) => (lstats++, nodeFs.lstatSync(path, options)) };
    const { p, snap } = setup(true, nodeProcessRunner, counting, { clock: AHEAD, projectDir: 'src' });
    writeFileSync(p.path('src/b.ts'), 'b\n');
    const start = await snap.take();
    lstats = 0;
    // Another size: with the clock ahead, git's whole seconds cannot tell a rewrite in the same second.
    writeFileSync(p.path('src/b.ts'), 'bigger\n');
    writeFileSync(p.path('README.md'), '# outside the project\n');
    const end = await snap.take();
    expect(await snap.changedPaths(start, end)).toEqual(['b.ts']);
    expect(lstats).toBe(1);
  });

  it('replaces a link planted in place of its private index, writing nothing through it, and still sees changes', async () => {
    const { p, id } = setup(true, nodeProcessRunner, undefined, { clock: AHEAD });
    const start = await id();
    const outside = p.path('.ralph/elsewhere.txt');
    writeFileSync(outside, 'keep\n');
    rmSync(p.path('.ralph/.content/index'), { force: true });
    symlinkSync(outside, p.path('.ralph/.content/index'));
    // A new size: within the clock's second git tells a change by size only.
    writeFileSync(p.path('src/a.ts'), 'bb\n');
    const changed = await id();
    expect(changed).not.toBe(start);
    expect(readFileSync(outside, 'utf8')).toBe('keep\n');
    writeFileSync(p.path('src/a.ts'), 'a\n');
    expect(await id()).toBe(start);
  });

  it('sees a tracked file deleted from disk (the list stays the same) and its return', async () => {
    const { p, snap } = setup();
    p.git('add', '-A');
    const start = await snap.take();
    rmSync(p.path('src/a.ts'));
    const gone = await snap.take();
    expect(gone.id).not.toBe(start.id);
    expect(gone.since?.changed).toEqual(['src/a.ts']);
    writeFileSync(p.path('src/a.ts'), 'a\n');
    expect((await snap.take()).id).toBe(start.id);
  });

  it('sees a rename that keeps the content, and compares snapshots two loops apart', async () => {
    const { p, snap } = setup();
    const start = await snap.take();
    renameSync(p.path('src/a.ts'), p.path('src/b.ts'));
    const renamed = await snap.take();
    expect(renamed.id).not.toBe(start.id);
    expect(await snap.changedPaths(start, renamed)).toEqual(['src/a.ts', 'src/b.ts']);
    writeFileSync(p.path('README.md'), '# other\n');
    const later = await snap.take();
    expect(await snap.changedPaths(start, { ...later, since: undefined })).toEqual(['README.md', 'src/a.ts', 'src/b.ts']);
  });

  it("sees a file removed from the end of the list (git's list a prefix of the last one)", async () => {
    const { p, snap } = setup();
    // git lists untracked files first, then tracked ones: the last tracked file is the list's end.
    writeFileSync(p.path('zz-last.ts'), 'z\n');
    p.git('add', 'zz-last.ts');
    const start = await snap.take();
    p.git('rm', '-q', '-f', 'zz-last.ts');
    const end = await snap.take();
    expect(await snap.changedPaths(start, end)).toEqual(['zz-last.ts']);
  });

  it('measures the files of a nested repository, with no git call inside it, in both stat paths', async () => {
    for (const gitStatFrom of [0, null]) {
      const cwds: string[] = [];
      const recording: ProcessRunner = {
        run: (command, args, options) => (cwds.push(String(options?.cwd)), nodeProcessRunner.run(command, args, options)),
        start: (command, args, options) => (cwds.push(String(options?.cwd)), nodeProcessRunner.start(command, args, options)),
      };
      const { p, snap } = setup(true, recording, undefined, { clock: AHEAD, gitStatFrom });
      const lib = p.path('vendor/lib');
      mkdirSync(join(lib, 'src'), { recursive: true });
      writeFileSync(join(lib, 'src/x.js'), 'x\n');
      execFileSync('git', ['init', '-q'], { cwd: lib });
      const start = await snap.take();
      await snap.take();
      appendFileSync(join(lib, 'src/x.js'), 'more\n');
      writeFileSync(join(lib, 'src/y.js'), 'y\n');
      mkdirSync(join(lib, '.git/junk'), { recursive: true });
      writeFileSync(join(lib, '.git/junk/z'), 'z\n');
      const end = await snap.take();
      expect(end.id).not.toBe(start.id);
      expect(await snap.changedPaths(start, end)).toEqual(['vendor/lib/src/x.js', 'vendor/lib/src/y.js']);
      // Back as it was: the same id as before.
      writeFileSync(join(lib, 'src/x.js'), 'x\n');
      rmSync(join(lib, 'src/y.js'));
      expect((await snap.take()).id).toBe(start.id);
      expect(cwds.filter((cwd) => cwd.startsWith(lib))).toEqual([]);
      p.cleanup();
    }
  });

  it('works in a folder that is no git repository', async () => {
    const { p, snap } = setup(false);
    const start = await snap.take();
    expect(start.id).toMatch(/^[0-9a-f]{40}$/);
    writeFileSync(p.path('.ralph/fix_plan.md'), '- [x] x\n');
    expect((await snap.take()).id).toBe(start.id);
    writeFileSync(p.path('src/b.ts'), 'b\n');
    const end = await snap.take();
    expect(end.id).not.toBe(start.id);
    expect(await snap.changedPaths(start, end)).toEqual(['src/b.ts']);
  });
});

describe('exclusionTest', () => {
  it('leaves out the named files and everything below the named folders, inside the project only', () => {
    const excluded = exclusionTest('/p', [
      { path: '.ralph', directory: true },
      { path: '/p/.ralphrc', directory: false },
      { path: 'docs/a*[b].md', directory: false },
      { path: '/elsewhere/PROMPT.md', directory: false },
    ]);
    expect(['.ralph/fix_plan.md', '.ralph/logs/x.log', '.ralphrc', 'docs/a*[b].md'].filter(excluded)).toHaveLength(4);
    expect(['.ralphrc2', '.ralph2/x', 'docs/ab.md', 'PROMPT.md', 'src/.ralphrc'].filter(excluded)).toEqual([]);
  });
});

function listTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const f = join(e.parentPath, e.name);
      return `${f}:${statSync(f).size}`;
    })
    .sort();
}
