import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { joinShellCommand, quoteForShell } from '../../../lib/text/shell-quote.js';

// What a real POSIX shell makes of a command line: each argument, NUL-terminated.
function shellArgs(commandLine: string): string[] {
  const out = execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${commandLine}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

const NASTY = [
  'plain',
  '',
  'two words',
  "it's",
  "''",
  '"double"',
  '$HOME',
  '${PATH}',
  '$(echo pwned)',
  '`id`',
  'a;b&&c||d|e',
  '> out < in',
  'back\\slash\\',
  'new\nline',
  'tab\there',
  '*?[a-z]',
  '~user',
  '#comment',
  '--allowed-tools=Bash(git *),Read',
  'ünïcödé 日本 ✅',
  '!event',
];

describe('quoteForShell', () => {
  it.each(NASTY)('a shell reads %j back exactly', (arg) => {
    expect(shellArgs(quoteForShell(arg))).toEqual([arg]);
  });

  it('joins a whole argv that the shell splits back into the same argv', () => {
    expect(shellArgs(joinShellCommand(NASTY))).toEqual(NASTY);
  });

  it('leaves simple words unquoted for readable pane commands', () => {
    expect(joinShellCommand(['node', '/opt/ralph/bin/ralph', '--calls', '5', '--live'])).toBe('node /opt/ralph/bin/ralph --calls 5 --live');
  });

  it('refuses what no shell argument can hold', () => {
    expect(() => quoteForShell('a\0b')).toThrow(/NUL/);
    expect(() => joinShellCommand([])).toThrow(/empty/);
  });
});
