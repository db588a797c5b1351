// resolveAgentExecutable on real files: the agent's real file and its interpreter's folder are
// bound, never the home itself.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveAgentExecutable } from '../../../lib/sandbox/agent-executable.js';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

function tree(): { home: string; bin: string } {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-agent-exe-')));
  const home = join(root, 'home');
  mkdirSync(join(home, '.local/bin'), { recursive: true });
  mkdirSync(join(home, '.nvm/bin'), { recursive: true });
  mkdirSync(join(home, '.npm/lib/claude-code'), { recursive: true });
  return { home, bin: join(home, '.local/bin') };
}

describe('resolveAgentExecutable', () => {
  it('follows the PATH symlink to the real file, and binds its folder and its env interpreter’s folder', () => {
    const { home, bin } = tree();
    writeFileSync(join(home, '.nvm/bin/node'), '', { mode: 0o755 });
    writeFileSync(join(home, '.npm/lib/claude-code/cli.js'), '#!/usr/bin/env -S node --no-warnings\n', { mode: 0o755 });
    symlinkSync(join(home, '.npm/lib/claude-code/cli.js'), join(bin, 'claude'));
    const env = { PATH: [bin, join(home, '.nvm/bin')].join(':') };
    expect(resolveAgentExecutable('claude', { env, cwd: '/', homeDir: home })).toEqual({
      command: join(home, '.npm/lib/claude-code/cli.js'),
      binds: [join(home, '.npm/lib/claude-code'), join(home, '.nvm/bin')],
    });
  });

  it('binds only the file when it sits in the home itself, and leaves an unknown command as it is', () => {
    const { home } = tree();
    writeFileSync(join(home, 'claude'), '#!/bin/sh\n', { mode: 0o755 });
    expect(resolveAgentExecutable('./claude', { env: { PATH: '' }, cwd: home, homeDir: home })).toEqual({
      command: join(home, 'claude'),
      binds: [join(home, 'claude'), dirname(realpathSync('/bin/sh'))],
    });
    expect(resolveAgentExecutable('claude', { env: { PATH: '' }, cwd: home, homeDir: home })).toEqual({ command: 'claude', binds: [] });
  });
});
