// `ralph-queue` usage errors name the option as the user typed it: `-x` for a short one,
// `--name` for a long one.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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
});
