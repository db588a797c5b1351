import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeLoopEnv, formatEnvScript, selectLoopEnv } from '../../../lib/monitor/loop-env.js';

describe('selectLoopEnv', () => {
  const env = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/u',
    MAX_CALLS_PER_HOUR: '50',
    CLAUDE_CODE_CMD: 'claude',
    ANTHROPIC_API_KEY: 'sk-secret',
    FAKE_CLAUDE_SCENARIO: '/tmp/s.json',
    NO_COLOR: '1',
    HTTPS_PROXY: 'http://proxy:3128',
    TERM: 'xterm-256color',
    TMUX: '/tmp/tmux-0/default,1,0',
    TMUX_PANE: '%3',
    COLUMNS: '120',
    PWD: '/elsewhere',
    ITERM_SESSION_ID: 'x',
    'not-a-shell-name': 'x',
    UNSET: undefined,
  };

  it('passes everything that configures ralph and the agent, and drops what describes the terminal', () => {
    expect(selectLoopEnv(env)).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/u',
      MAX_CALLS_PER_HOUR: '50',
      CLAUDE_CODE_CMD: 'claude',
      ANTHROPIC_API_KEY: 'sk-secret',
      FAKE_CLAUDE_SCENARIO: '/tmp/s.json',
      NO_COLOR: '1',
      HTTPS_PROXY: 'http://proxy:3128',
    });
  });

  it('describes only names, and only the ralph and agent ones', () => {
    const names = describeLoopEnv(selectLoopEnv(env));
    expect(names).toEqual(['ANTHROPIC_API_KEY', 'CLAUDE_CODE_CMD', 'FAKE_CLAUDE_SCENARIO', 'MAX_CALLS_PER_HOUR']);
    expect(names.join(' ')).not.toContain('sk-secret');
  });
});

describe('formatEnvScript', () => {
  it('is sourced by a POSIX shell into exactly the same values', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-env-'));
    try {
      const vars = { A: "it's $HOME `id` $(id)", B: 'line1\nline2', C: '', D: 'back\\slash' };
      const file = join(dir, 'env');
      writeFileSync(file, formatEnvScript(vars));
      const out = execFileSync('/bin/sh', ['-c', `. '${file}' && printf '%s\\0' "$A" "$B" "$C" "$D"`], { encoding: 'utf8', env: { PATH: process.env.PATH } });
      expect(out.split('\0').slice(0, -1)).toEqual([vars.A, vars.B, vars.C, vars.D]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
