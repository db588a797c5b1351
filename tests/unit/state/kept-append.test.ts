// ralph.log gets several lines a loop: they go through one descriptor kept open while the path
// still names the file it holds, and the path is opened again (with every no-follow check) only
// when it names something else: rotated, removed, or replaced by a link, which is refused.

import { mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeptAppendFile } from '../../../lib/state/kept-append.js';
import { isRefusedWrite, openNoFollow } from '../../../lib/state/no-follow.js';

const dirs: string[] = [];
const files: KeptAppendFile[] = [];
afterEach(() => {
  for (const file of files.splice(0)) file.close();
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

/** A kept file in a fresh `.ralph/`, counting the opens of its path. */
function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-kept-'));
  dirs.push(dir);
  const path = join(dir, 'ralph.log');
  const opens: string[] = [];
  const file = new KeptAppendFile(path, 0o644, (p, flags, mode) => {
    opens.push(p);
    return openNoFollow(p, flags, mode);
  });
  files.push(file);
  return { dir, path, file, opens };
}

describe('a file appended through a kept descriptor', () => {
  it('opens the path once for many appends while it names the same file', () => {
    const { path, file, opens } = setup();
    for (let n = 1; n <= 7; n++) file.append(`line ${n}\n`);
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(7);
    expect(opens).toHaveLength(1);
  });

  it('opens it again once it was rotated or removed, and the lines land in the new file', () => {
    const { path, file, opens } = setup();
    file.append('first\n');
    renameSync(path, `${path}.1`);
    file.append('second\n');
    unlinkSync(path);
    file.append('third\n');
    expect(readFileSync(`${path}.1`, 'utf8')).toBe('first\n');
    expect(readFileSync(path, 'utf8')).toBe('third\n');
    expect(opens).toHaveLength(3);
  });

  it('lets the caller rotate before an append, given the size the path has now', () => {
    const { path, file } = setup();
    file.append('12345\n');
    const sizes: Array<number | undefined> = [];
    file.append('after\n', (size) => {
      sizes.push(size);
      renameSync(path, `${path}.1`);
      return true;
    });
    expect(sizes).toEqual([6]);
    expect(readFileSync(`${path}.1`, 'utf8')).toBe('12345\n');
    expect(readFileSync(path, 'utf8')).toBe('after\n');
  });

  it('refuses a link put in its place, and writes nothing through it', () => {
    const { dir, path, file } = setup();
    file.append('mine\n');
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'original\n');
    unlinkSync(path);
    symlinkSync(victim, path);
    let refused: unknown;
    try {
      file.append('through the link?\n');
    } catch (error) {
      refused = error;
    }
    expect(isRefusedWrite(refused)).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
  });
});
