import { execFileSync, spawnSync } from 'node:child_process';
import { linkSync, lstatSync, readFileSync, readdirSync, renameSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atomicWriteCount, writeFileAtomic } from '../../../lib/state/atomic-write.js';
import { releaseSpareFiles } from '../../../lib/state/spare-files.js';
import { transpileForChild } from './child-build.js';
import { useTempDir } from './test-context.js';

const tempDir = useTempDir();
const spareOf = (dir: string) => join(dir, `.status.json.tmp-${process.pid}-spare`);

/** Three writes to a fresh status.json in `dir`; returns the path. */
function threeWrites(dir: string): string {
  const path = join(dir, 'status.json');
  writeFileAtomic(path, '{"loop":1}\n');
  writeFileAtomic(path, '{"loop":2}\n');
  writeFileAtomic(path, '{"loop":3}\n');
  return path;
}

describe('a state file replaced again and again', () => {
  it('is written through the inode its last write replaced: no inode is made or freed after the first two', () => {
    const dir = tempDir();
    const path = join(dir, 'status.json');
    const inodes: number[] = [];
    for (let loop = 1; loop <= 6; loop++) {
      writeFileAtomic(path, `{"loop":${loop},"text":"${'x'.repeat(loop % 2 ? 900 : 10)}"}\n`);
      inodes.push(statSync(path).ino);
    }
    expect(new Set(inodes).size).toBe(2);
    expect(inodes[2]).toBe(inodes[0]);
    // A shorter write than the last one through the same inode leaves none of the longer one behind.
    expect(readFileSync(path, 'utf8')).toBe(`{"loop":6,"text":"${'x'.repeat(10)}"}\n`);
    expect(readdirSync(dir).sort()).toEqual([`.status.json.tmp-${process.pid}-spare`, 'status.json']);
    releaseSpareFiles();
    expect(readdirSync(dir)).toEqual(['status.json']);
  });

  it('keeps an exact mode asked for through the spare', () => {
    const dir = tempDir();
    const path = join(dir, '.claude_session_id');
    writeFileAtomic(path, 'a', { mode: 0o600 });
    writeFileAtomic(path, 'b', { mode: 0o644 });
    writeFileAtomic(path, 'c', { mode: 0o600 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileAtomic(path, 'd', { mode: 0o640 });
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(readFileSync(path, 'utf8')).toBe('d');
  });
});

describe('a spare the agent replaced', () => {
  // Each plants something under the spare's name between two writes; the victim is a file the
  // agent would like ralph to overwrite (a user's file elsewhere).
  const plants: Record<string, (spare: string, victim: string) => void> = {
    'a symlink to a user file': (spare, victim) => {
      unlinkSync(spare);
      symlinkSync(victim, spare);
    },
    'a hard link to a user file': (spare, victim) => {
      unlinkSync(spare);
      linkSync(victim, spare);
    },
    'a named pipe': (spare) => {
      unlinkSync(spare);
      execFileSync('mkfifo', [spare]);
    },
    'another file': (spare) => {
      unlinkSync(spare);
      writeFileSync(spare, 'planted');
    },
    'a second name for the spare itself': (spare, victim) => {
      unlinkSync(victim);
      linkSync(spare, victim);
    },
  };

  for (const [what, plant] of Object.entries(plants)) {
    it(`is not written through when it is ${what}: a new temp file is made`, () => {
      const dir = tempDir();
      const victim = join(tempDir(), 'bashrc');
      writeFileSync(victim, 'user text\n');
      const path = threeWrites(dir);
      plant(spareOf(dir), victim);
      const victimBefore = readFileSync(victim, 'utf8');
      writeFileAtomic(path, '{"loop":4}\n');
      writeFileAtomic(path, '{"loop":5}\n');
      expect(readFileSync(path, 'utf8')).toBe('{"loop":5}\n');
      expect(lstatSync(path).isFile()).toBe(true);
      expect(readFileSync(victim, 'utf8')).toBe(victimBefore);
      // What was planted is gone from the spare's name; the spare is ralph's own file again.
      const spare = lstatSync(spareOf(dir));
      expect(spare.isFile() && spare.nlink).toBe(1);
    });
  }

  it('is not kept when the file in place is not the one this process wrote (a hard link to a user file)', () => {
    const dir = tempDir();
    const victim = join(tempDir(), 'authorized_keys');
    writeFileSync(victim, 'ssh-ed25519 AAAA user\n');
    const path = threeWrites(dir);
    unlinkSync(path);
    linkSync(victim, path);
    writeFileAtomic(path, '{"loop":4}\n');
    writeFileAtomic(path, '{"loop":5}\n');
    writeFileAtomic(path, '{"loop":6}\n');
    expect(readFileSync(victim, 'utf8')).toBe('ssh-ed25519 AAAA user\n');
    expect(statSync(victim).nlink).toBe(1);
    expect(readFileSync(path, 'utf8')).toBe('{"loop":6}\n');
  });

  it('is not kept when the file in place was swapped for another of the same name', () => {
    const dir = tempDir();
    const path = threeWrites(dir);
    const other = join(dir, 'other');
    writeFileSync(other, 'theirs');
    renameSync(other, path);
    const theirs = statSync(path).ino;
    const before = atomicWriteCount();
    writeFileAtomic(path, '{"loop":4}\n');
    writeFileAtomic(path, '{"loop":5}\n');
    expect(atomicWriteCount() - before).toBe(2);
    expect(statSync(path).ino).not.toBe(theirs);
    expect(statSync(spareOf(dir)).ino).not.toBe(theirs);
  });
});

describe('a process that wrote state files', () => {
  it('leaves no spare behind when it exits', () => {
    const dir = tempDir();
    const build = tempDir();
    transpileForChild(['state/atomic-write.ts', 'state/process-alive.ts', 'state/no-follow.ts', 'state/spare-files.ts', 'errors.ts'], build);
    const script = join(build, 'writes.mjs');
    writeFileSync(
      script,
      `import { readdirSync } from 'node:fs';
       import { writeFileAtomic } from './state/atomic-write.js';
       const [dir] = process.argv.slice(2);
       for (let i = 0; i < 4; i++) writeFileAtomic(dir + '/status.json', String(i));
       process.stdout.write(JSON.stringify(readdirSync(dir).sort()));`,
    );
    const child = spawnSync(process.execPath, [script, dir], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    // While it ran, a spare beside the file; after it, the file alone.
    expect(JSON.parse(child.stdout)).toEqual([`.status.json.tmp-${child.pid}-spare`, 'status.json']);
    expect(readdirSync(dir)).toEqual(['status.json']);
    expect(readFileSync(join(dir, 'status.json'), 'utf8')).toBe('3');
  });
});
