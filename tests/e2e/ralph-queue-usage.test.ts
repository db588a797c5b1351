// `ralph-queue` usage errors name the option as the user typed it: `-x` for a short one,
// `--name` for a long one.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'queue-usage-'));
  mkdirSync(join(dir, '.ralph'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('ralph-queue usage errors', () => {
  it.each([
    [['status', '-q'], 'Unknown option: -q'],
    [['add', '--label', '-x'], 'Unknown option: -x'],
    [['status', '--bogus'], 'Unknown option: --bogus'],
    [['next', '-q', '--bogus'], 'Unknown option: -q, --bogus'],
  ])('ralph-queue %j → %s', async (args, message) => {
    const result = await runCli('ralph-queue', args, { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Error: ${message}\n`);
  });

  it('ralph-queue add 12 without gh names how to install it', async () => {
    // PATH with git and no gh (a fresh folder of links to git only).
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin, 'git'));
    const result = await runCli('ralph-queue', ['add', '12'], { cwd: dir, env: { PATH: bin } });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain(
      'Could not fetch issue #12: GitHub CLI (gh) is not installed (install it from https://cli.github.com/ and run: gh auth login)',
    );
  });
});
