// What others see of a state file while ralph rewrites it: a reader that opened it keeps the
// file it opened, whole, however many writes follow; and nothing but the file itself is left
// in `.ralph/` between writes for git (or an agent's `git add -A`) to pick up.

import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../lib/state/atomic-write.js';
import { useTempDir } from './test-context.js';

const tempDir = useTempDir();

/** Reads `length` bytes from `fd` (fewer at end of file), as a string. */
function readUpTo(fd: number, length: number): string {
  const buffer = Buffer.alloc(length);
  let got = 0;
  for (let n = -1; n !== 0 && got < length; got += n) n = readSync(fd, buffer, got, length - got, null);
  return buffer.subarray(0, got).toString('utf8');
}

const version = (loop: number, filler: string): string => `{"loop":${loop},"text":"${filler.repeat(200)}"}\n`;

describe('a reader of a state file', () => {
  it('reads the whole file it opened, however many writes replace it meanwhile', () => {
    const path = join(tempDir(), 'status.json');
    const first = version(1, 'a');
    writeFileAtomic(path, first);
    // The monitor opens the view and reads part of it; ralph writes the view several times.
    const fd = openSync(path, 'r');
    try {
      const head = readUpTo(fd, 50);
      for (let loop = 2; loop <= 5; loop++) writeFileAtomic(path, version(loop, String.fromCharCode(96 + loop)));
      expect(head + readUpTo(fd, 100_000)).toBe(first);
    } finally {
      closeSync(fd);
    }
  });
});

describe('a project whose .gitignore is the Bash tool’s', () => {
  // The Bash tool's template ignores these views by name, not `.ralph/.*`.
  const BASH_GITIGNORE = [
    '.ralph/.call_count',
    '.ralph/.last_reset',
    '.ralph/.exit_signals',
    '.ralph/status.json',
    '.ralph/.ralph_session',
    '.ralph/.ralph_session_history',
    '.ralph/.claude_session_id',
    '.ralph/.response_analysis',
    '.ralph/.circuit_breaker_state',
    '.ralph/.circuit_breaker_history',
    '.ralph/logs/*',
    '*.log',
    '',
  ].join('\n');

  it('shows nothing new in git status after its views were written again and again', () => {
    const project = tempDir();
    execFileSync('git', ['init', '-q', project]);
    writeFileSync(join(project, '.gitignore'), BASH_GITIGNORE);
    mkdirSync(join(project, '.ralph'));
    const status = () => execFileSync('git', ['-C', project, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' });
    const before = status();
    for (let loop = 1; loop <= 3; loop++) {
      writeFileAtomic(join(project, '.ralph', 'status.json'), `{"loop":${loop}}\n`);
      writeFileAtomic(join(project, '.ralph', '.call_count'), `${loop}\n`);
      writeFileAtomic(join(project, '.ralph', '.claude_session_id'), `session-${loop}\n`, { mode: 0o600 });
    }
    expect(status()).toBe(before);
  });
});
