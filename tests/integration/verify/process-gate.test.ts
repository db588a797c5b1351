// The gate's process handling with real commands: argv vs sh -c, a time limit that kills the
// whole process tree (even a child that ignores SIGTERM), a command that cannot start, every
// quality gate running after a failure, an interrupt, and TAP read from `node --test`.

import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../lib/platform/clock.js';
import { nodeProcessRunner, type ProcessRunner } from '../../../lib/platform/process.js';
import { runVerificationGate } from '../../../lib/verify/run-gate.js';
import { isProcessRunning } from '../../helpers/process-state.js';
import { gateOptions } from './verify-fixture.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-verify-proc-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// The gate kills the group before it returns; allow the kernel a moment to deliver SIGKILL.
async function waitUntilDead(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && isProcessRunning(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !isProcessRunning(pid);
}

describe('gate processes', () => {
  it('kills the whole tree at the time limit, even a grandchild that ignores SIGTERM', async () => {
    const script = join(dir, 'hang.mjs');
    writeFileSync(
      script,
      [
        "import { spawn } from 'node:child_process';",
        "import { writeFileSync } from 'node:fs';",
        "const child = spawn(process.execPath, ['-e', \"process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)\"], { stdio: 'ignore' });",
        'writeFileSync(process.argv[2], String(child.pid));',
        "process.on('SIGTERM', () => {});",
        'console.log("started");',
        'setInterval(() => {}, 1000);',
      ].join('\n'),
    );
    const pidFile = join(dir, 'child.pid');
    const result = await runVerificationGate(
      gateOptions(dir, { commands: [{ command: `node ${script} ${pidFile}`, role: 'test' }], timeoutMs: 5000, graceMs: 200 }),
    );
    expect(result.status).toBe('error');
    expect(result.commands[0]).toMatchObject({ status: 'error', timedOut: true, exitCode: null });
    expect(result.failures[0]!.message).toMatch(/^timed out after .*the process tree was killed$/);
    expect(result.commands[0]!.output).toContain('started');
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    expect(await waitUntilDead(grandchild)).toBe(true);
  });

  it('runs a command with shell syntax through sh -c and a plain one as argv', async () => {
    const result = await runVerificationGate(
      gateOptions(dir, {
        commands: [
          { command: 'echo "one" && echo two >&2 && exit 3', role: 'test' },
          // As argv the quotes are not a shell's: the single word reaches node intact.
          { command: `node -e "process.exit(process.argv[1] === 'a|b' ? 0 : 1)" 'a|b'`, role: 'quality-gate' },
        ],
      }),
    );
    expect(result.commands[0]).toMatchObject({ status: 'failed', exitCode: 3, format: 'exit-code' });
    expect(result.failures[0]).toEqual({ name: 'echo "one" && echo two >&2 && exit 3', message: 'exited with code 3\none\ntwo' });
    expect(result.commands[1]).toMatchObject({ status: 'passed', exitCode: 0, role: 'quality-gate' });
    expect(result.status).toBe('failed');
  });

  it('reports a command that cannot start as an error and still runs the next gate', async () => {
    const result = await runVerificationGate(
      gateOptions(dir, {
        commands: [
          { command: 'ralph-no-such-test-runner --all', role: 'test' },
          { command: 'node -e "process.exit(0)"', role: 'quality-gate' },
        ],
      }),
    );
    expect(result.commands.map((c) => c.status)).toEqual(['error', 'passed']);
    // ENOENT, or EACCES when a folder on PATH cannot be searched (an ordinary user with root's PATH).
    expect(result.failures).toEqual([{ name: 'ralph-no-such-test-runner --all', message: expect.stringMatching(/^could not start: (ENOENT|EACCES)$/) }]);
  });

  it('does not start commands once the time limit is spent', async () => {
    let calls = 0;
    const jumpy: Clock = { now: () => (calls++ === 0 ? 0 : 10_000_000), sleep: async () => undefined };
    const result = await runVerificationGate(gateOptions(dir, { clock: jumpy, timeoutMs: 60_000, commands: [{ command: 'node -e 0', role: 'test' }] }));
    expect(result.commands[0]).toMatchObject({ status: 'error', failures: [{ message: 'not run: the verification time limit was reached' }] });
  });

  it('stops the running command when interrupted and starts no more', async () => {
    const abort = new AbortController();
    // Interrupt once the first command has said it is running: an event, not a timer that a
    // loaded machine can beat.
    const runner: ProcessRunner = {
      ...nodeProcessRunner,
      start(cmd, args, options = {}) {
        return nodeProcessRunner.start(cmd, args, {
          ...options,
          onStdout: (chunk) => {
            options.onStdout?.(chunk);
            if (chunk.toString().includes('running')) abort.abort();
          },
        });
      },
    };
    const result = await runVerificationGate(
      gateOptions(dir, {
        signal: abort.signal,
        processRunner: runner,
        commands: [
          { command: 'node -e "console.log(\'running\'); setInterval(() => {}, 1000)"', role: 'test' },
          { command: 'node -e 0', role: 'quality-gate' },
        ],
      }),
    );
    expect(abort.signal.aborted).toBe(true);
    expect(result.commands.map((c) => c.failures[0]?.message)).toEqual(['interrupted', 'interrupted before it started']);
    expect(result.commands[0]!.output).toContain('running');
  });

  it('reads TAP from a real `node --test` run', async () => {
    writeFileSync(
      join(dir, 'math.test.mjs'),
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('adds', () => assert.equal(1 + 1, 3));\ntest('subtracts', () => assert.equal(2 - 1, 1));\n",
    );
    const result = await runVerificationGate(gateOptions(dir, { commands: [{ command: 'node --test --test-reporter=tap math.test.mjs', role: 'test' }] }));
    expect(result).toMatchObject({ status: 'failed', passed: 1, failed: 1 });
    expect(result.commands[0]!.format).toBe('tap');
    expect(result.failures[0]!.name).toBe('adds');
    expect(result.failures[0]!.message).toContain('Expected values to be strictly equal');
  });

  it('sets CI and turns colour off for the commands, without overriding the user', async () => {
    const result = await runVerificationGate(
      gateOptions(dir, {
        env: { ...process.env, CI: 'custom', NO_COLOR: undefined, FORCE_COLOR: undefined },
        commands: [{ command: 'node -e "console.log([process.env.CI, process.env.NO_COLOR, process.env.FORCE_COLOR].join(\',\'))"', role: 'test' }],
      }),
    );
    expect(result.commands[0]!.output.trim()).toBe('custom,1,0');
  });
});
