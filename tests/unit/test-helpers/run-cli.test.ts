// runCli (tests/helpers/run-cli.ts): a command still running when its test ends, because the
// test timed out or failed first, is stopped; it does not run on after the test.

import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';

const packageRoot = mkdtempSync(join(tmpdir(), 'run-cli-'));
afterAll(() => rmSync(packageRoot, { recursive: true, force: true }));
let pid: number | undefined;

function isRunning(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch {
    return false;
  }
}

describe('runCli', () => {
  it('starts a command that never ends; the test ends without waiting for it', async () => {
    mkdirSync(join(packageRoot, 'bin'));
    writeFileSync(join(packageRoot, 'bin', 'forever'), "setInterval(() => undefined, 1000);\nprocess.stdout.write('up\\n');\n");
    chmodSync(join(packageRoot, 'bin', 'forever'), 0o755);
    const up = new Promise<void>((resolve) => {
      void runCli('forever', [], { packageRoot, onSpawn: (child) => (pid = child.pid), onStdout: () => resolve() });
    });
    await up;
    expect(isRunning(pid!)).toBe(true);
  });

  it('gives the result of a command that exits without reading its input (no EPIPE error)', async () => {
    writeFileSync(join(packageRoot, 'bin', 'deaf'), "process.stdout.write('bye\\n');\nprocess.exit(3);\n");
    chmodSync(join(packageRoot, 'bin', 'deaf'), 0o755);
    const result = await runCli('deaf', [], { packageRoot, input: 'x'.repeat(4 * 1024 * 1024) });
    expect(result).toMatchObject({ code: 3, stdout: 'bye\n' });
  });

  it('has stopped it once that test ended', async () => {
    const deadline = Date.now() + 10_000;
    while (isRunning(pid!) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    try {
      expect(isRunning(pid!)).toBe(false);
    } finally {
      if (isRunning(pid!)) process.kill(pid!, 'SIGKILL');
    }
  });
});
