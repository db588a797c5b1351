// vitest's temp folder in RAM (tests/helpers/ram-temp-dir.ts): a private folder, open to all like
// /tmp, in the first usable candidate; and the folders of runs that ended without their
// teardown, removed once they have been still for a while.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../../helpers/cleanups.js';
import { makeRamTempDir } from '../../helpers/ram-temp-dir.js';

const cleanups = useCleanups();

function candidate(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ram-candidate-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The pid of a process that has ended. */
function endedPid(): number {
  return Number(execFileSync(process.execPath, ['-p', 'process.pid'], { encoding: 'utf8' }));
}

const HOUR = 3_600_000;

describe('makeRamTempDir', () => {
  it('makes a folder named for this run, open to all like /tmp, in the first candidate that is a folder', () => {
    const parent = candidate();
    const dir = makeRamTempDir({ candidates: [join(parent, 'missing'), parent], minFreeBytes: 0 });
    expect(dir).toBeDefined();
    expect(dirname(dir!)).toBe(parent);
    expect(basename(dir!)).toMatch(new RegExp(`^ralph-tests-${process.pid}-`));
    expect(statSync(dir!).mode & 0o7777).toBe(0o1777);
    expect(readdirSync(dir!)).toEqual([]);
  });

  it('is undefined when no candidate is a folder, and the caller keeps the usual temp folder', () => {
    const parent = candidate();
    writeFileSync(join(parent, 'file'), '');
    expect(makeRamTempDir({ candidates: [join(parent, 'missing'), join(parent, 'file')], minFreeBytes: 0 })).toBeUndefined();
  });

  it("passes over a candidate with less room than the suite needs (a container's small /dev/shm)", () => {
    const parent = candidate();
    expect(makeRamTempDir({ candidates: [parent], minFreeBytes: Number.MAX_SAFE_INTEGER })).toBeUndefined();
    expect(readdirSync(parent)).toEqual([]);
  });

  it('removes the folder of a run that ended once it has been still a while; keeps a running one, a recent one and folders not its own', () => {
    const parent = candidate();
    const ended = join(parent, `ralph-tests-${endedPid()}-abc`);
    const endedRecently = join(parent, `ralph-tests-${endedPid()}-def`);
    const running = join(parent, `ralph-tests-${process.ppid}-abc`);
    const other = join(parent, 'ralph-state-123-abc');
    for (const dir of [ended, endedRecently, running, other]) mkdirSync(join(dir, 'project'), { recursive: true });
    const now = Date.now() + HOUR;
    for (const dir of [ended, running, other]) utimesSync(dir, new Date(now - HOUR), new Date(now - HOUR));
    utimesSync(endedRecently, new Date(now - 60_000), new Date(now - 60_000));
    makeRamTempDir({ candidates: [parent], minFreeBytes: 0, now });
    expect([ended, endedRecently, running, other].map(existsSync)).toEqual([false, true, true, true]);
  });
});
