// vitest's RAM temp folder (tests/helpers/ram-temp-dir.ts) where only root can set the scene:
// a RAM file system mounted noexec is passed over (the suite's fake CLIs could not run there),
// and the sweep of folders left by ended runs, run as root, removes no other user's. Needs root
// (mount, chown).

import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useCleanups } from '../helpers/cleanups.js';
import { makeRamTempDir } from '../helpers/ram-temp-dir.js';

const cleanups = useCleanups();
beforeAll(() => {
  if (process.getuid?.() !== 0) throw new Error('tests/system/ram-temp-dir-as-root.test.ts must run as root (sudo npm run test:system)');
});

/** A fresh tmpfs mounted with `options`, unmounted and removed after the test. */
function tmpfs(options: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ram-mount-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `${options},size=16m`, 'tmpfs', dir]);
  cleanups.push(() => execFileSync('umount', [dir]));
  return dir;
}

/** The pid of a process that has ended. */
function endedPid(): number {
  return Number(execFileSync(process.execPath, ['-p', 'process.pid'], { encoding: 'utf8' }));
}

describe('makeRamTempDir as root', () => {
  it('passes over a RAM file system mounted noexec and leaves nothing in it; the same mount with exec is used', () => {
    const noexec = tmpfs('noexec');
    expect(makeRamTempDir({ candidates: [noexec], minFreeBytes: 0 })).toBeUndefined();
    expect(readdirSync(noexec)).toEqual([]);

    const exec = tmpfs('exec');
    const dir = makeRamTempDir({ candidates: [noexec, exec], minFreeBytes: 0 });
    expect(dir?.startsWith(`${exec}/ralph-tests-${process.pid}-`)).toBe(true);
  });

  it("removes root's own folder of an ended run and keeps another user's, however long it has been still", () => {
    const parent = mkdtempSync(join(tmpdir(), 'ram-candidate-'));
    cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
    const own = join(parent, `ralph-tests-${endedPid()}-abc`);
    const others = join(parent, `ralph-tests-${endedPid()}-def`);
    for (const dir of [own, others]) mkdirSync(join(dir, 'project'), { recursive: true });
    chownSync(others, 4242, 4242);
    const now = Date.now() + 3_600_000;
    for (const dir of [own, others]) utimesSync(dir, new Date(now - 3_600_000), new Date(now - 3_600_000));
    makeRamTempDir({ candidates: [parent], minFreeBytes: 0, now });
    expect([own, others].map(existsSync)).toEqual([false, true]);
  });
});
