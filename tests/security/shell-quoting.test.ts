// The one place ralph hands text to a shell: `ralph --monitor` gives tmux command lines and an
// env file for its panes, and tmux runs them with /bin/sh. For any argv and any environment
// value (quotes, $(…), backticks, newlines, leading dashes, non-ASCII), the real /bin/sh must
// receive exactly those strings back and run nothing else.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { formatEnvScript } from '../../lib/monitor/loop-env.js';
import { joinShellCommand } from '../../lib/text/shell-quote.js';

const dir = mkdtempSync(join(tmpdir(), 'ralph-quote-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Strings a shell would love to interpret, mixed with arbitrary text (no NUL: argv cannot hold one).
const HOSTILE = [
  `$(touch ${dir}/p1)`,
  `\`touch ${dir}/p2\``,
  `'; touch ${dir}/p3; '`,
  `"; touch ${dir}/p4; "`,
  `\\'$(touch ${dir}/p5)`,
  '--dangerously-skip-permissions',
  '-rf',
  '*',
  '~',
  '$HOME',
  '${PATH}',
  '!!',
  '&',
  '|',
  ';',
  '\n',
  'a\nb',
  "it's",
  '',
];
const piece = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ unit: 'binary', maxLength: 12 }).map((s) => s.replaceAll('\0', '')),
);
const hostileString = fc.array(piece, { maxLength: 5 }).map((parts) => parts.join(''));

function sh(script: string, args: string[] = []): { stdout: Buffer; status: number | null } {
  const r = spawnSync('/bin/sh', ['-c', script, 'sh', ...args], { cwd: dir, timeout: 10_000 });
  return { stdout: r.stdout, status: r.status };
}

const splitNul = (out: Buffer) => {
  const parts = out.toString('utf8').split('\0');
  parts.pop();
  return parts;
};

const canaries = () => readdirSync(dir).filter((n) => /^p\d$/.test(n));

describe('shell quoting for tmux panes (property, through /bin/sh)', () => {
  it('joinShellCommand: the shell runs exactly the argv given', () => {
    fc.assert(
      fc.property(fc.array(hostileString, { minLength: 0, maxLength: 6 }), (args) => {
        const line = joinShellCommand(['printf', '%s\\0', ...args]);
        const { stdout, status } = sh(line);
        expect(status).toBe(0);
        expect(splitNul(stdout)).toEqual(args.length === 0 ? [''] : args);
      }),
      { numRuns: 150 },
    );
    expect(canaries()).toEqual([]);
  });

  it('formatEnvScript: sourcing it sets exactly those values and runs nothing', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/), hostileString, { maxKeys: 5 }), (vars) => {
        const names = Object.keys(vars).filter((n) => !['PATH', 'IFS', 'PS4', 'ENV', 'HOME', 'PWD', 'OLDPWD', 'SHELL'].includes(n));
        const picked = Object.fromEntries(names.map((n) => [n, vars[n]!]));
        const file = join(dir, 'env');
        writeFileSync(file, formatEnvScript(picked));
        const print = names.map((n) => `printf '%s\\0' "$${n}"`).join('; ');
        const { stdout, status } = sh(`. "$1"; ${print || 'true'}`, [file]);
        expect(status).toBe(0);
        expect(splitNul(stdout)).toEqual(names.map((n) => picked[n]));
      }),
      { numRuns: 150 },
    );
    expect(canaries()).toEqual([]);
  });
});
