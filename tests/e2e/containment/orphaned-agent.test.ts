// kill -9 of ralph leaves its agent running (the agent has its own process group). The lock
// records that group, so the next ralph, taking over the stale lock, stops the left agent —
// SIGTERM, then SIGKILL for a grandchild that ignores SIGTERM — and says so, before its own
// agent starts: never two agents on one tree.

import { spawn } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { isProcessRunning } from '../../helpers/process-state.js';
import { binPath, runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const work = (n: number) => ({ writeFiles: { [`f${n}.txt`]: `${n}\n` }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } });

function readLock(p: TmpProject): { pid?: number; agentPgid?: number; agentExe?: string } {
  try {
    return JSON.parse(readFileSync(p.path('.ralph/.ralph.lock'), 'utf8')) as { pid?: number; agentPgid?: number; agentExe?: string };
  } catch {
    return {};
  }
}

function readExecutable(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

/**
 * Starts ralph, waits until its agent (and the agent's child) run and the lock names the agent's
 * group with the executable its leader runs (not the `#!/usr/bin/env` launcher it was spawned
 * as), then SIGKILLs ralph.
 */
function startAndKill9(p: TmpProject, f: FakeClaude): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath('ralph'), '--max-loops', '2'], {
      cwd: p.dir,
      env: { ...process.env, NO_COLOR: '1', ...f.env },
      stdio: 'ignore',
    });
    const timer = setInterval(() => {
      const run = f.runs()[0];
      const lock = readLock(p);
      if (run?.childPid === undefined || lock.agentPgid !== run.pid || lock.agentExe !== readExecutable(run.pid)) return;
      clearInterval(timer);
      child.kill('SIGKILL');
    }, 25);
    child.on('error', reject);
    child.on('exit', () => {
      clearInterval(timer);
      resolve(child.pid!);
    });
  });
}

describe('an agent left running by a ralph killed with -9', () => {
  it('is stopped (TERM, then KILL) and logged by the next ralph before its own agent starts', async () => {
    const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git: true });
    const f = withFakeClaude({ calls: [{ hang: 'afterInit', spawnChild: { ignoreSigterm: true } }, work(2), work(3)] });
    cleanups.push(
      () => p.cleanup(),
      () => f.cleanup(),
      () => {
        for (const pid of [f.runs()[0]?.pid, f.runs()[0]?.childPid]) {
          try {
            if (pid) process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
      },
    );
    const deadRalph = await startAndKill9(p, f);
    const [left] = f.runs();
    // The situation this guards against: ralph is gone, its agent and the agent's child run on.
    expect(isProcessRunning(left!.pid)).toBe(true);
    expect(isProcessRunning(left!.childPid!)).toBe(true);

    const r = await runCli('ralph', ['--max-loops', '2'], { cwd: p.dir, env: f.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`The agent of the ralph that is gone (pid ${deadRalph}) is still running (process group ${left!.pid}); stopping it first`);
    expect(r.stderr).toContain(`Stopped the agent left running by pid ${deadRalph} (process group ${left!.pid}, with SIGKILL after the grace period)`);
    for (const pid of [left!.pid, left!.childPid!]) expect(isProcessRunning(pid), `pid ${pid}`).toBe(false);

    // The left agent answered SIGTERM (its end record) before the new ralph's first agent started.
    const records = readFileSync(f.logPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { index: number; phase: string; signal?: string });
    const leftEnd = records.findIndex((rec) => rec.index === left!.index && rec.phase === 'end');
    const nextStart = records.findIndex((rec) => rec.phase === 'start' && rec.index > left!.index && f.runs().some((run) => run.index === rec.index));
    expect(records[leftEnd]).toMatchObject({ signal: 'SIGTERM' });
    expect(nextStart).toBeGreaterThan(leftEnd);
    // The lock no longer names an agent group once the run is over (it is released).
    expect(readLock(p)).toEqual({});
  }, 30_000);
});
