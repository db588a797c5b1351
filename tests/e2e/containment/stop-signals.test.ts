// Closing the terminal (SIGHUP) and SIGQUIT stop ralph like SIGTERM: the agent's whole process
// tree is gone (a grandchild that ignores SIGTERM too), status `interrupted`, the lock released,
// exit 128 + the signal number. The hang-up case also closes ralph's output first, as a closed
// terminal does, so every later write of ralph's fails.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCall, type FakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { isProcessRunning } from '../../helpers/process-state.js';
import { binPath } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

function setup(): { p: TmpProject; f: FakeClaude } {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git: true });
  const f = withFakeClaude({ calls: [{ hang: 'afterInit', spawnChild: { ignoreSigterm: true } }] });
  cleanups.push(
    () => p.cleanup(),
    () => f.cleanup(),
  );
  return { p, f };
}

/** Kills what a failed test left behind (the fake ignores nothing but SIGTERM: SIGKILL works). */
function killLeftovers(call: FakeCall | undefined): void {
  for (const pid of [call?.pid, call?.childPid]) {
    if (pid === undefined) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** Runs ralph until its agent and the agent's child run, sends `signal`, and resolves with the exit code. */
function runAndSignal(p: TmpProject, f: FakeClaude, signal: NodeJS.Signals, closeOutputFirst: boolean): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath('ralph')], {
      cwd: p.dir,
      env: { ...process.env, NO_COLOR: '1', ...f.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.resume();
    child.stderr.resume();
    // The fake logs childPid once its child runs and ignores SIGTERM; live.log once ralph shows the run.
    const timer = setInterval(() => {
      if (f.runs()[0]?.childPid === undefined || !existsSync(p.path('.ralph/live.log'))) return;
      clearInterval(timer);
      if (closeOutputFirst) {
        child.stdout.destroy();
        child.stderr.destroy();
      }
      child.kill(signal);
    }, 25);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      resolve(code);
    });
  });
}

describe('signals that end a session stop the agent tree', () => {
  it.each([
    ['SIGHUP, the terminal closed', 129, 'SIGHUP' as const, true],
    ['SIGQUIT', 131, 'SIGQUIT' as const, false],
  ])('%s → exit %i: whole tree gone, status interrupted, lock released', async (_name, exitCode, signal, closeOutputFirst) => {
    const { p, f } = setup();
    cleanups.push(() => killLeftovers(f.runs()[0]));
    const code = await runAndSignal(p, f, signal, closeOutputFirst);
    const [call] = f.runs();
    expect(call!.childPid).toBeDefined();
    for (const pid of [call!.pid, call!.childPid!]) expect(isProcessRunning(pid), `pid ${pid}`).toBe(false);
    expect(code).toBe(exitCode);
    const status = JSON.parse(readFileSync(p.path('.ralph/status.json'), 'utf8'));
    expect(status).toMatchObject({ last_action: 'interrupted', status: 'stopped', exit_reason: 'interrupted' });
    expect(existsSync(p.path('.ralph/.ralph.lock'))).toBe(false);
    expect(readFileSync(p.path('.ralph/logs/ralph.log'), 'utf8')).toContain('Ralph loop interrupted');
  });
});
