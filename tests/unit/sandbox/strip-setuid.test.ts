// After a sandboxed call no setuid or setgid file survives in the project: the host's `find`
// names the files that carry a bit (ralph looks at those alone), and where `find` cannot run the
// same walk is made in ralph. Links are never followed; a name that is no UTF-8 is still reached.

import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../../helpers/cleanups.js';
import { nodeProcessRunner, type ProcessRunner } from '../../../lib/platform/process.js';
import { createHostSandbox } from '../../../lib/sandbox/host-sandbox.js';
import { stripSetuidFiles, type StripFs } from '../../../lib/sandbox/strip-setuid.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { createTreeChanges, type TreeChanges } from '../../../lib/platform/tree-changes.js';

const cleanups = useCleanups();

function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'ralph-strip-setuid-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** The real filesystem, with each call counted. */
function countingFs(): { fs: StripFs; calls: { lstat: number; readdir: number } } {
  const calls = { lstat: 0, readdir: 0 };
  const fs: StripFs = {
    lstatSync: (path) => (calls.lstat++, lstatSync(path)),
    readdirSync: (path) => (calls.readdir++, readdirSync(path, { encoding: 'buffer' })),
  };
  return { fs, calls };
}

/** A project with two planted files (setuid, setgid), an ordinary one, and a link to a setuid file outside. */
function plantedProject(): { project: string; outside: string } {
  const project = dir();
  const outside = dir();
  mkdirSync(join(project, 'deep/er'), { recursive: true });
  for (const [file, mode] of [
    ['deep/er/suid', 0o4755],
    ['sgid', 0o2750],
    ['plain', 0o755],
  ] as const) {
    writeFileSync(join(project, file), '#!/bin/sh\n');
    chmodSync(join(project, file), mode);
  }
  writeFileSync(join(outside, 'theirs'), 'x');
  chmodSync(join(outside, 'theirs'), 0o4755);
  symlinkSync(join(outside, 'theirs'), join(project, 'link'));
  return { project, outside };
}

// `find` is missing where PATH leads nowhere: the walk is made in ralph.
const noFind = { processRunner: nodeProcessRunner, env: { PATH: '/nonexistent-ralph-test-path' } };

/** A content snapshot asking the walk for every entry changed since `since` (by default: all of them). */
function asking(since = 0): TreeChanges {
  const changes = createTreeChanges();
  changes.want(since);
  return changes;
}

describe('stripSetuidFiles', () => {
  for (const [how, options] of [
    ['with find', () => ({ processRunner: nodeProcessRunner })],
    ['with find, the content snapshot asking for what changed', () => ({ processRunner: nodeProcessRunner, changes: asking() })],
    ['where find cannot run', () => noFind],
    ['without a process runner', () => ({})],
  ] as const) {
    it(`clears setuid and setgid bits anywhere in the project, follows no link, and keeps the other bits (${how})`, async () => {
      const { project, outside } = plantedProject();
      expect((await stripSetuidFiles(project, options())).sort()).toEqual([join(project, 'deep/er/suid'), join(project, 'sgid')]);
      expect(statSync(join(project, 'deep/er/suid')).mode & 0o7777).toBe(0o755);
      expect(statSync(join(project, 'sgid')).mode & 0o7777).toBe(0o750);
      expect(statSync(join(project, 'plain')).mode & 0o7777).toBe(0o755);
      expect(statSync(join(outside, 'theirs')).mode & 0o7777).toBe(0o4755);
    });
  }

  it('looks at only the files find names: no lstat per file of the tree in ralph', async () => {
    const { project } = plantedProject();
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(project, `src${d}`));
      for (let f = 0; f < 50; f++) writeFileSync(join(project, `src${d}`, `f${f}.ts`), 'x\n');
    }
    const withFind = countingFs();
    expect(await stripSetuidFiles(project, { processRunner: nodeProcessRunner, fs: withFind.fs })).toHaveLength(2);
    // The project's folder, then each of the two files find named.
    expect(withFind.calls).toEqual({ lstat: 3, readdir: 0 });
    // Where find cannot run, every entry is lstat'ed in ralph (and nothing is missed).
    chmodSync(join(project, 'sgid'), 0o2750);
    const walked = countingFs();
    expect(await stripSetuidFiles(project, { ...noFind, fs: walked.fs })).toEqual([join(project, 'sgid')]);
    expect(walked.calls.lstat).toBeGreaterThan(1000);
  });

  it('clears the bit of a file whose name is no UTF-8, with find and without', async () => {
    const project = dir();
    const name = Buffer.concat([Buffer.from(`${project}/bad-`), Buffer.from([0xff, 0xfe])]);
    for (const options of [{ processRunner: nodeProcessRunner }, { processRunner: nodeProcessRunner, changes: asking() }, noFind]) {
      writeFileSync(name, '#!/bin/sh\n');
      chmodSync(name, 0o4755);
      expect(await stripSetuidFiles(project, options)).toHaveLength(1);
      expect(lstatSync(name).mode & 0o7777).toBe(0o755);
    }
  });

  it('clears the bit of a file deeper than the longest path a system call takes, with find and without', async () => {
    const project = dir();
    // 30 folders of 200 bytes: 6 KB, past PATH_MAX (4 KB). Made, and later removed, by the shell a folder at a time.
    const folder = 'd'.repeat(200);
    execFileSync('bash', ['--norc', '-c', `for i in $(seq 30); do mkdir ${folder} && cd ${folder}; done && printf x > suid && chmod 4755 suid`], {
      cwd: project,
    });
    cleanups.push(() => execFileSync('rm', ['-rf', project]));
    const setIdFiles = () => execFileSync('find', ['.', '-type', 'f', '-perm', '/6000'], { cwd: project }).toString();
    for (const options of [{ processRunner: nodeProcessRunner }, { processRunner: nodeProcessRunner, changes: asking() }, noFind]) {
      execFileSync('bash', ['--norc', '-c', `for i in $(seq 30); do cd ${folder}; done && chmod 4755 suid`], { cwd: project });
      expect(setIdFiles()).not.toBe('');
      expect(await stripSetuidFiles(project, options)).toHaveLength(1);
      expect(setIdFiles()).toBe('');
    }
  });

  it('a folder swapped for a link after the file was named: the file it now leads to, outside, keeps its bit (with find and without)', async () => {
    for (const options of [{ processRunner: nodeProcessRunner }, { processRunner: nodeProcessRunner, changes: asking() }, noFind]) {
      const project = dir();
      const outside = dir();
      mkdirSync(join(project, 'bin'));
      for (const folder of [join(project, 'bin'), outside]) {
        writeFileSync(join(folder, 'tool'), '#!/bin/sh\n');
        chmodSync(join(folder, 'tool'), 0o4755);
      }
      // A process the kill missed swaps bin/ for a link to a folder of the host as ralph reaches the file.
      let swapped = false;
      const racing: StripFs = {
        lstatSync: (path) => {
          if (!swapped && path.toString() === join(project, 'bin', 'tool')) {
            swapped = true;
            renameSync(join(project, 'bin'), join(project, 'bin-was'));
            symlinkSync(outside, join(project, 'bin'));
          }
          return lstatSync(path);
        },
        readdirSync: (path) => readdirSync(path, { encoding: 'buffer' }),
      };
      await stripSetuidFiles(project, { ...options, fs: racing });
      expect(swapped).toBe(true);
      expect(statSync(join(outside, 'tool')).mode & 0o7777).toBe(0o4755);
    }
  });

  it('makes the walk in ralph when find fails, so a folder it could not read leaves nothing unseen', async () => {
    const { project } = plantedProject();
    const failing: ProcessRunner = {
      start: (cmd, args, options) => nodeProcessRunner.start('sh', ['-c', 'exit 1'], options),
      run: (cmd, args, options) => nodeProcessRunner.run(cmd, args, options),
    };
    expect((await stripSetuidFiles(project, { processRunner: failing })).sort()).toEqual([join(project, 'deep/er/suid'), join(project, 'sgid')]);
  });

  it("after each call of ralph run as root without a sandbox: one run of find, no walk of the tree in ralph's process", async () => {
    const { project } = plantedProject();
    const started: string[] = [];
    const recording: ProcessRunner = {
      start: (cmd, args, options) => (started.push(cmd), nodeProcessRunner.start(cmd, args, options)),
      run: (cmd, args, options) => (started.push(cmd), nodeProcessRunner.run(cmd, args, options)),
    };
    const root = { uid: 0, gid: 0 };
    const sandbox = createHostSandbox({
      projectDir: project,
      homeDir: dir(),
      env: process.env,
      processRunner: recording,
      logger: createMemoryLogger(),
      allowRootAgent: true,
      ids: { ralph: root, owner: root },
    });
    await sandbox.start();
    await sandbox.afterCall();
    expect(started).toEqual(['find']);
    expect(statSync(join(project, 'deep/er/suid')).mode & 0o7777).toBe(0o755);
  });
});

/** A runner that records each command it starts (the command and its arguments). */
function recordingRunner(started: string[][], failIf: (args: readonly string[]) => boolean = () => false): ProcessRunner {
  return {
    start: (cmd, args, options) => (
      started.push([cmd, ...args]),
      failIf(args) ? nodeProcessRunner.start('sh', ['-c', 'exit 1'], options) : nodeProcessRunner.start(cmd, args, options)
    ),
    run: (cmd, args, options) => (started.push([cmd, ...args]), nodeProcessRunner.run(cmd, args, options)),
  };
}

/** The filesystem's now: the mtime of a file just written under `folder`. */
function fsNow(folder: string): number {
  writeFileSync(join(folder, '.now'), '');
  return statSync(join(folder, '.now')).mtimeMs;
}

describe('the walk after a call, asked by the content snapshot for what changed', () => {
  it('names, in the same run of find, every entry changed since the time asked for (ignored folders and .git too) and the set-id files', async () => {
    const { project } = plantedProject();
    for (const folder of ['src', 'ignored', '.git/hooks']) mkdirSync(join(project, folder), { recursive: true });
    for (const file of ['src/a.ts', 'src/b.ts', 'src/c.ts', 'ignored/x', '.git/hooks/pre-commit']) writeFileSync(join(project, file), 'x\n');
    const since = fsNow(dir());
    // What a loop does: content, mode, a rename, a link, a folder, in an ignored folder and in .git.
    writeFileSync(join(project, 'src/a.ts'), 'y\n');
    chmodSync(join(project, 'src/b.ts'), 0o600);
    renameSync(join(project, 'src/c.ts'), join(project, 'src/d.ts'));
    symlinkSync('a.ts', join(project, 'src/e.ts'));
    mkdirSync(join(project, 'src/new'));
    writeFileSync(join(project, 'ignored/x'), 'z\n');
    chmodSync(join(project, '.git/hooks/pre-commit'), 0o755);
    const started: string[][] = [];
    const changes = asking(since);
    expect((await stripSetuidFiles(project, { processRunner: recordingRunner(started), changes })).sort()).toEqual([
      join(project, 'deep/er/suid'),
      join(project, 'sgid'),
    ]);
    // One walk of the tree, shared out among walks side by side where there are cores for them.
    expect(started.every(([cmd, ...args]) => cmd === 'find' && args.includes('-newerct'))).toBe(true);
    expect(started.length).toBeLessThanOrEqual(Math.max(1, Math.min(4, availableParallelism())));
    const walk = changes.take();
    expect(walk?.since).toBe(since);
    expect(walk?.entries).toEqual(
      expect.arrayContaining(['src', 'src/a.ts', 'src/b.ts', 'src/d.ts', 'src/e.ts', 'src/new', 'ignored/x', '.git/hooks/pre-commit', 'deep/er/suid', 'sgid']),
    );
    // Asked from a time past every change: only the set-id files (their bits change now).
    const later = asking(Date.now() + 60_000);
    chmodSync(join(project, 'sgid'), 0o2750);
    await stripSetuidFiles(project, { processRunner: nodeProcessRunner, changes: later });
    expect(later.take()?.entries).toEqual(['sgid']);
  });

  it('where find knows no -newerct or -printf, the plain walk clears the bits and names nothing: the snapshot checks every file itself', async () => {
    const { project } = plantedProject();
    const started: string[][] = [];
    const changes = asking();
    const runner = recordingRunner(started, (args) => args.includes('-printf'));
    expect(await stripSetuidFiles(project, { processRunner: runner, changes })).toHaveLength(2);
    expect(started.at(-1)).toEqual(['find', '.', '-xdev', '-type', 'f', '(', '-perm', '-4000', '-o', '-perm', '-2000', ')', '-print0']);
    expect(changes.take()).toBeUndefined();
    expect(statSync(join(project, 'sgid')).mode & 0o7777).toBe(0o750);
  });

  it('a top entry planted while the walks side by side run is walked too (one walk from the project again)', async () => {
    const { project } = plantedProject();
    for (let d = 0; d < 6; d++) mkdirSync(join(project, `top${d}`));
    let planted = false;
    const started: string[][] = [];
    const racing: ProcessRunner = {
      start: (cmd, args, options) => {
        started.push([cmd, ...args]);
        if (!planted) {
          // A process the kill missed makes a folder at the top, with a set-id file in it.
          planted = true;
          mkdirSync(join(project, 'late'));
          writeFileSync(join(project, 'late/tool'), '#!/bin/sh\n');
          chmodSync(join(project, 'late/tool'), 0o4755);
        }
        return nodeProcessRunner.start(cmd, args, options);
      },
      run: (cmd, args, options) => nodeProcessRunner.run(cmd, args, options),
    };
    const changes = asking();
    const stripped = await stripSetuidFiles(project, { processRunner: racing, changes });
    expect(stripped.sort()).toEqual([join(project, 'deep/er/suid'), join(project, 'late/tool'), join(project, 'sgid')]);
    expect(changes.take()?.entries).toEqual(expect.arrayContaining(['late', 'late/tool', '']));
    if (availableParallelism() > 1) expect(started.at(-1)?.slice(0, 3)).toEqual(['find', '.', '-xdev']);
  });

  it('a project the snapshot listed few files of is walked by one find: a second costs ralph a spawn for less than it saves', async () => {
    const { project } = plantedProject();
    for (let d = 0; d < 6; d++) mkdirSync(join(project, `top${d}`));
    const finds = async (listed: number | undefined): Promise<number> => {
      let started = 0;
      const counting: ProcessRunner = {
        start: (cmd, args, options) => ((started += cmd === 'find' ? 1 : 0), nodeProcessRunner.start(cmd, args, options)),
        run: (cmd, args, options) => nodeProcessRunner.run(cmd, args, options),
      };
      const changes = createTreeChanges();
      changes.want(0, listed);
      await stripSetuidFiles(project, { processRunner: counting, changes });
      expect(changes.take()?.entries).toEqual(expect.arrayContaining(['top5', 'deep/er/suid']));
      return started;
    };
    expect(await finds(100)).toBe(1);
    expect(await finds(50_000)).toBe(Math.min(4, availableParallelism()));
  });

  it('shares the top entries out without a stat of each, unless the mount table lists a file system mounted below the project', async () => {
    const { project } = plantedProject();
    for (let d = 0; d < 6; d++) mkdirSync(join(project, `top${d}`));
    const real = realpathSync(project);
    const lstats = async (table: string): Promise<number> => {
      chmodSync(join(project, 'deep/er/suid'), 0o4755);
      chmodSync(join(project, 'sgid'), 0o2750);
      const counting = countingFs();
      const changes = createTreeChanges();
      changes.want(0, 50_000);
      const stripped = await stripSetuidFiles(project, { processRunner: nodeProcessRunner, changes, fs: counting.fs, mountInfo: () => table });
      expect(stripped).toHaveLength(2);
      expect(changes.take()?.entries).toEqual(expect.arrayContaining(['top5', 'deep/er/suid']));
      return counting.calls.lstat;
    };
    const line = (point: string): string => `36 25 0:45 / ${point.replaceAll(' ', '\\040')} rw,relatime shared:1 - tmpfs tmpfs rw\n`;
    const notBelow = [line('/'), line(real), line(`${real}-other`), line(`${real} x`)].join('');
    // The project's folder (at the start, and before and after the walks side by side), then the two set-id files find named.
    expect(await lstats(notBelow)).toBe(availableParallelism() > 1 ? 5 : 4);
    // A mount below: each of the 10 top entries is stat'ed too (one walk on a single core stats none).
    expect(await lstats(notBelow + line(`${real}/top3`))).toBe(availableParallelism() > 1 ? 15 : 4);
  });

  it('the host sandbox run as root hands its walk to the snapshot; run as another user it makes none', async () => {
    const { project } = plantedProject();
    const sandboxAs = (uid: number) =>
      createHostSandbox({
        projectDir: project,
        homeDir: dir(),
        env: process.env,
        processRunner: nodeProcessRunner,
        logger: createMemoryLogger(),
        allowRootAgent: true,
        ids: { ralph: { uid, gid: uid }, owner: { uid, gid: uid } },
      });
    expect(sandboxAs(1000).changes).toBeUndefined();
    const sandbox = sandboxAs(0);
    await sandbox.start();
    sandbox.changes!.want(0);
    await sandbox.afterCall();
    expect(sandbox.changes!.take()?.entries).toEqual(expect.arrayContaining(['deep/er/suid', 'sgid', 'plain']));
  });
});
