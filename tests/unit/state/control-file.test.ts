import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertWritableStateFiles, controlFileProblem, readControlFile } from '../../../lib/state/control-file.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'ralph-control-'));
  dirs.push(d);
  return d;
}

describe('readControlFile', () => {
  it('reads a regular file, and a symlink that stays in the project', () => {
    const project = dir();
    writeFileSync(join(project, 'real.md'), '# task\n');
    symlinkSync('real.md', join(project, 'PROMPT.md'));
    expect(readControlFile(join(project, 'PROMPT.md'), { projectDir: project, requireContent: true })).toBe('# task\n');
  });

  it('judges what it opened: a .ralph/ folder swapped for a link out of the project is refused, not read', () => {
    const project = dir();
    const outside = dir();
    writeFileSync(join(outside, 'PROMPT.md'), 'host secret\n');
    symlinkSync(outside, join(project, '.ralph'));
    expect(() => readControlFile(join(project, '.ralph', 'PROMPT.md'), { projectDir: project, requireContent: true })).toThrow(
      /\.ralph\/PROMPT\.md is a symlink to .*outside the project/,
    );
  });

  it('gives undefined for a missing file', () => {
    expect(readControlFile(join(dir(), 'absent.md'), { projectDir: dir() })).toBeUndefined();
  });

  it('refuses NUL bytes and an oversized file, naming the file relative to the project', () => {
    const project = dir();
    writeFileSync(join(project, '.ralphrc'), 'A=1\u0000\n');
    expect(() => readControlFile(join(project, '.ralphrc'), { projectDir: project })).toThrow('.ralphrc contains NUL bytes');
    writeFileSync(join(project, 'big.md'), 'x'.repeat(2048));
    expect(controlFileProblem(join(project, 'big.md'), { projectDir: project, maxBytes: 1024 })).toMatch(/more than the/);
  });

  it('allows a symlink out of its directory only when asked (a ~/.ralphrc into a dotfiles repository)', () => {
    const home = dir();
    const dotfiles = dir();
    writeFileSync(join(dotfiles, 'ralphrc'), 'MAX_LOOPS=3\n');
    symlinkSync(join(dotfiles, 'ralphrc'), join(home, '.ralphrc'));
    expect(controlFileProblem(join(home, '.ralphrc'), { projectDir: home })).toMatch(/outside the project/);
    expect(readControlFile(join(home, '.ralphrc'), { projectDir: home, allowSymlinkOut: true })).toBe('MAX_LOOPS=3\n');
  });
});

describe('assertWritableStateFiles', () => {
  it('refuses a state file that is a directory, and nothing else', () => {
    const project = dir();
    mkdirSync(join(project, '.ralph', 'status.json'), { recursive: true });
    writeFileSync(join(project, '.ralph', '.call_count'), '1\n');
    expect(() => assertWritableStateFiles([join(project, '.ralph', '.call_count')], project)).not.toThrow();
    expect(() => assertWritableStateFiles([join(project, '.ralph', 'status.json')], project)).toThrow('.ralph/status.json is a directory');
  });
});
