// npm test's temp folder in RAM (tests/helpers/ram-temp-dir.ts): a private folder in the first
// usable candidate, and the folders of runs that ended without their teardown removed.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRamTempDir } from '../../helpers/ram-temp-dir.js';

const made: string[] = [];
afterEach(() => made.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function candidate(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ram-candidate-'));
  made.push(dir);
  return dir;
}

/** The pid of a process that has ended. */
function endedPid(): number {
  return Number(execFileSync(process.execPath, ['-p', 'process.pid'], { encoding: 'utf8' }));
}

describe('makeRamTempDir', () => {
  it('makes a private folder, named for this run, in the first candidate that is a folder', () => {
    const parent = candidate();
    const dir = makeRamTempDir([join(parent, 'missing'), parent]);
    expect(dir).toBeDefined();
    expect(dirname(dir!)).toBe(parent);
    expect(basename(dir!)).toMatch(new RegExp(`^ralph-tests-${process.pid}-`));
    expect(readdirSync(dir!)).toEqual([]);
  });

  it('is undefined when no candidate is a folder, and the caller keeps the usual temp folder', () => {
    const parent = candidate();
    writeFileSync(join(parent, 'file'), '');
    expect(makeRamTempDir([join(parent, 'missing'), join(parent, 'file')])).toBeUndefined();
  });

  it('passes over a candidate with less room than the suite needs (a container\'s small /dev/shm)', () => {
    const parent = candidate();
    expect(makeRamTempDir([parent], Number.MAX_SAFE_INTEGER)).toBeUndefined();
    expect(readdirSync(parent)).toEqual([]);
  });

  it('removes the folder of a run that ended, and keeps a running one and folders not its own', () => {
    const parent = candidate();
    const ended = join(parent, `ralph-tests-${endedPid()}-abc`);
    const running = join(parent, `ralph-tests-${process.ppid}-abc`);
    const other = join(parent, 'ralph-state-123-abc');
    for (const dir of [ended, running, other]) mkdirSync(join(dir, 'project'), { recursive: true });
    makeRamTempDir([parent]);
    expect([ended, running, other].map(existsSync)).toEqual([false, true, true]);
  });
});
