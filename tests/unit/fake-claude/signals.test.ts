// Process behaviour of the fake: hangs that only signals end, SIGTERM ignored so that only
// SIGKILL works, a child in the same process group dying with a group kill, and crashes.
// Every wait is on output or exit events, never on a clock.
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startClaude as startFake, withFakeClaude, type FakeClaude, type FakeScenario, type StartedClaude } from '../../helpers/fake-claude.js';

let fake: FakeClaude | undefined;
const started: Array<{ run: StartedClaude; detached: boolean }> = [];
const make = (scenario: FakeScenario) => (fake = withFakeClaude(scenario));
const startClaude = (...args: Parameters<typeof startFake>) => {
  const run = startFake(...args);
  started.push({ run, detached: Boolean(args[2]?.detached) });
  return run;
};
afterEach(() => {
  // a failed assertion must not leave a hanging, SIGTERM-proof fake behind
  for (const { run, detached } of started.splice(0)) {
    if (run.child.exitCode !== null || run.child.signalCode !== null || !run.child.pid) continue;
    try {
      process.kill(detached ? -run.child.pid : run.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  fake?.cleanup();
  fake = undefined;
});

const STREAM = ['-p', 'say hi', '--output-format', 'stream-json', '--verbose'];

/** True once `pid` is gone or a zombie (a zombie is dead, merely not yet reaped). */
function isDead(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return /\) [ZX] /.test(stat);
  } catch {
    return true;
  }
}

async function waitUntilDead(pid: number): Promise<boolean> {
  for (let i = 0; i < 2000; i++) {
    if (isDead(pid)) return true;
    await new Promise((r) => setTimeout(r, 5));
  }
  return false;
}

describe('fake claude signals and failures', () => {
  it('hang midTool: the tool_use line is out, SIGTERM ends it with 143 and no result', async () => {
    make({ calls: [{ hang: 'midTool', steps: [{ tool: 'Bash', input: { command: 'ls' }, stdout: 'x' }, { text: 'never' }] }] });
    const started = startClaude(fake!, STREAM);
    const lines = await started.waitForLines(2);
    expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['system', 'assistant']);
    started.child.kill('SIGTERM');
    expect(await started.exited).toEqual({ code: 143, signal: null });
    expect(started.lines).toHaveLength(2);
    expect(fake!.calls()[0]).toMatchObject({ exitCode: 143, signal: 'SIGTERM', finished: true });
  });

  it('SIGINT in json mode prints nothing and exits 0 (recording sigint_json)', async () => {
    make({ calls: [{ hang: 'beforeInit', stderrNoise: 'FAKE-READY' }] });
    const started = startClaude(fake!, ['-p', 'say hi', '--output-format', 'json']);
    await started.waitForStderr('FAKE-READY'); // written as the run starts, just before the hang
    started.child.kill('SIGINT');
    expect(await started.exited).toEqual({ code: 0, signal: null });
    expect(started.lines).toEqual([]);
  });

  it('ignoreSigterm: SIGTERM is ignored, SIGKILL is needed, and the log shows an unfinished call', async () => {
    make({ calls: [{ hang: 'afterInit', ignoreSigterm: true }] });
    const started = startClaude(fake!, STREAM);
    await started.waitForLines(1);
    started.child.kill('SIGTERM');
    await started.waitForStderr('FAKE: ignoring SIGTERM');
    expect(started.child.exitCode).toBeNull();
    expect(fake!.calls()[0]!.sigtermIgnored).toBe(true);
    started.child.kill('SIGKILL');
    expect(await started.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(fake!.calls()[0]!.finished).toBe(false);
  });

  it('ignoreSigtermMs: SIGTERM is acknowledged but the exit (143) only comes later', async () => {
    make({ calls: [{ hang: 'afterInit', ignoreSigtermMs: 50 }] });
    const started = startClaude(fake!, STREAM);
    await started.waitForLines(1);
    started.child.kill('SIGTERM');
    await started.waitForStderr('FAKE: ignoring SIGTERM for 50 ms');
    expect(await started.exited).toEqual({ code: 143, signal: null });
  });

  it('spawnChild: the child shares the process group and dies with a group SIGKILL', async () => {
    make({ calls: [{ hang: 'afterInit', ignoreSigterm: true, spawnChild: true }] });
    const started = startClaude(fake!, STREAM, { detached: true });
    await started.waitForLines(1);
    const childPid = fake!.calls()[0]!.childPid!;
    expect(childPid).toBeGreaterThan(0);
    const pgid = started.child.pid!;
    expect(readFileSync(`/proc/${childPid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]).toBe(String(pgid));
    process.kill(-pgid, 'SIGTERM');
    await started.waitForStderr('FAKE: ignoring SIGTERM');
    expect(started.child.exitCode).toBeNull();
    process.kill(-pgid, 'SIGKILL');
    expect((await started.exited).signal).toBe('SIGKILL');
    expect(await waitUntilDead(childPid)).toBe(true);
  });

  it('crash after N lines: partial stream, stack trace on stderr, chosen exit code', async () => {
    make({ calls: [{ crash: { afterLines: 2, exitCode: 134, stderr: 'Error: boom\n    at x (y.js:1:1)' } }] });
    const run = await fake!.run(STREAM);
    expect(run.code).toBe(134);
    expect(run.stdout.trim().split('\n')).toHaveLength(2);
    expect(run.stdout).not.toContain('"type":"result"');
    expect(run.stderr).toBe('Error: boom\n    at x (y.js:1:1)\n');
  });

  it('sigtermMode "signal": dies by the signal itself instead of exiting 143', async () => {
    make({ calls: [{ hang: 'afterInit', sigtermMode: 'signal' }] });
    const started = startClaude(fake!, STREAM);
    await started.waitForLines(1);
    started.child.kill('SIGTERM');
    expect(await started.exited).toEqual({ code: null, signal: 'SIGTERM' });
  });
});
