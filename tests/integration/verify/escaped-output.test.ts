// A gate command whose daemon escapes with setsid and keeps the command's stdout: the gate
// closes the pipes after the bounded drain, reports it, keeps the command's real exit code, and
// the ralph process can then end (an open pipe would keep Node's event loop, and ralph, alive).
// Runs the built gate in a child node so "can end" is observable; the test timeout is the clock.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';

let dir: string | undefined;
let driverPid: number | undefined;
// Even when the test fails (a hang), neither the driver nor the daemon may outlive it.
afterEach(() => {
  const daemonFile = dir && join(dir, 'daemon.pid');
  const pids = [driverPid, daemonFile && existsSync(daemonFile) ? Number(readFileSync(daemonFile, 'utf8')) : undefined];
  for (const pid of pids) {
    try {
      if (pid) process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  driverPid = dir = undefined;
});

describe('gate command with an escaped daemon holding its output', () => {
  it('ends with the real exit code and a report of the escape, and lets the process exit', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-verify-escape-'));
    const command = join(dir, 'command.mjs');
    writeFileSync(
      command,
      "import { spawn } from 'node:child_process';\nimport { writeFileSync } from 'node:fs';\n" +
        "const d = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] });\n" +
        `writeFileSync(${JSON.stringify(join(dir, 'daemon.pid'))}, String(d.pid));\nd.unref();\nprocess.exitCode = 7;\n`,
    );
    const gate = pathToFileURL(join(REPO_ROOT, 'dist', 'verify', 'run-gate.js')).href;
    const runner = pathToFileURL(join(REPO_ROOT, 'dist', 'platform', 'process.js')).href;
    const clock = pathToFileURL(join(REPO_ROOT, 'dist', 'platform', 'clock.js')).href;
    const driver =
      `const { runVerificationGate } = await import(${JSON.stringify(gate)});\n` +
      `const { nodeProcessRunner } = await import(${JSON.stringify(runner)});\n` +
      `const { systemClock } = await import(${JSON.stringify(clock)});\n` +
      'const held = [];\n' +
      `const r = await runVerificationGate({ commands: [{ command: ${JSON.stringify(`node ${command}`)}, role: 'test' }], projectDir: ${JSON.stringify(dir)}, env: process.env, timeoutMs: 60000, processRunner: nodeProcessRunner, clock: systemClock, onPipesHeldOpen: (c) => held.push(c) });\n` +
      'console.log(JSON.stringify({ exitCode: r.commands[0].exitCode, held }));\n';
    const child = spawn(process.execPath, ['--input-type=module', '-e', driver], { stdio: ['ignore', 'pipe', 'inherit'] });
    driverPid = child.pid;
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const report = JSON.parse(out.trim().split('\n').at(-1)!) as { exitCode: number; held: string[] };
    expect(code).toBe(0);
    expect(report.exitCode).toBe(7);
    expect(report.held).toEqual([`node ${command}`]);
  }, 20_000);
});
