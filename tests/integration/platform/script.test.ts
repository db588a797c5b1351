// zx templates without a shell: every interpolated value reaches the program as one verbatim
// argument (shell syntax in it is never run), lists spread into words, and shell syntax in the
// template's own text is refused rather than silently meaning something else than in Bash.

import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { loadScript } from '../../../lib/platform/script.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-script-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const PRINT_ARGV = 'console.log(JSON.stringify(process.argv.slice(1)))';

async function argvOf(build: (node: Awaited<ReturnType<typeof loadScript>>) => ReturnType<Awaited<ReturnType<typeof loadScript>>>) {
  const node = await loadScript(process.execPath, { runner: nodeProcessRunner, cwd: dir });
  const result = await build(node);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as string[];
}

describe('loadScript', () => {
  it('passes shell syntax in a value verbatim and runs none of it', async () => {
    mkdirSync(join(dir, 'x'));
    const hostile = ['$(touch pwned)', 'a; rm -rf x', '`touch pwned2`', 'it\'s "quoted" \\ $HOME', '*', 'two  spaces\nnewline', '\u00e9t\u00e9'];
    const argv = await argvOf(
      (node) => node`-e ${PRINT_ARGV} ${hostile[0]!} ${hostile[1]!} ${hostile[2]!} ${hostile[3]!} ${hostile[4]!} ${hostile[5]!} ${hostile[6]!}`,
    );
    expect(argv).toEqual(hostile);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    expect(existsSync(join(dir, 'pwned2'))).toBe(false);
    expect(existsSync(join(dir, 'x'))).toBe(true);
  });

  it('splits the template text into words, spreads lists and keeps empty and joined values', async () => {
    const files = ['a b.txt', 'c.txt'];
    const argv = await argvOf((node) => node`-e ${PRINT_ARGV} --   --format=${'%H %s'} ${files} ${''} ${42} -- end`);
    expect(argv).toEqual(['--format=%H %s', 'a b.txt', 'c.txt', '', '42', '--', 'end']);
  });

  it('refuses shell syntax in the template text itself', async () => {
    const node = await loadScript(process.execPath, { runner: nodeProcessRunner, cwd: dir });
    await expect(node`-e ${PRINT_ARGV} $(touch pwned)`).rejects.toThrow(/shell syntax in a script template/);
    await expect(node`-e ${PRINT_ARGV} 'quoted'`).rejects.toThrow(/shell syntax/);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
  });

  it('runs with the runner options: cwd, env and a time limit', async () => {
    const node = await loadScript(process.execPath, { runner: nodeProcessRunner, cwd: dir, env: { ...process.env, RALPH_X: 'y' } });
    const env = await node`-e ${'console.log(process.cwd(), process.env.RALPH_X)'}`;
    expect(env.stdout.trim()).toBe(`${dir} y`);
    const limited = await loadScript(process.execPath, { runner: nodeProcessRunner, timeoutMs: 200, graceMs: 100 });
    const hung = await limited`-e ${'setInterval(() => {}, 1000)'}`;
    expect(hung.timedOut).toBe(true);
  });
});
