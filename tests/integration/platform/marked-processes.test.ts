// Finding the processes that carry the run's mark, with real processes in their own sessions:
// only a whole `RALPH_RUN_ID=<id>` variable counts (not a longer id, not another variable ending
// in the name, not the id in a value), wherever it sits in the environment, a large environment
// included; and killing them ends exactly those.

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { findMarkedProcesses, killMarkedProcesses } from '../../../lib/platform/marked-processes.js';
import { isProcessRunning } from '../../helpers/process-state.js';

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

/** A sleeping process in its own session (as a `setsid` daemon) with exactly `env`. */
async function sleeper(env: Record<string, string>): Promise<number> {
  const child = spawn('sleep', ['60'], { env: { PATH: process.env.PATH ?? '', ...env }, detached: true, stdio: 'ignore' });
  child.unref();
  await new Promise<void>((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  started.push(child.pid!);
  return child.pid!;
}

async function waitUntilDead(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && isProcessRunning(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !isProcessRunning(pid);
}

describe.runIf(process.platform === 'linux')('marked processes', () => {
  it('finds the processes whose environment holds the run mark as a whole variable, and only those', async () => {
    const id = randomUUID();
    const first = await sleeper({ RALPH_RUN_ID: id, OTHER: 'x' });
    const last = await sleeper({ A: 'b', RALPH_RUN_ID: id });
    const big = Object.fromEntries([1, 2, 3].map((n) => [`BIG_${n}`, 'y'.repeat(60_000)]));
    const huge = await sleeper({ ...big, RALPH_RUN_ID: id });
    await sleeper({ RALPH_RUN_ID: `${id}-other` });
    await sleeper({ NOT_RALPH_RUN_ID: id });
    await sleeper({ NOTE: `RALPH_RUN_ID=${id}` });
    expect(findMarkedProcesses(id).sort((a, b) => a - b)).toEqual([first, last, huge].sort((a, b) => a - b));
  });

  it('kills the marked processes and leaves the others running', async () => {
    const id = randomUUID();
    const marked = await sleeper({ RALPH_RUN_ID: id });
    const other = await sleeper({ RALPH_RUN_ID: randomUUID() });
    expect(killMarkedProcesses(id)).toBe(1);
    expect(await waitUntilDead(marked)).toBe(true);
    expect(isProcessRunning(other)).toBe(true);
  });

  it('finds a process marked after an earlier scan of the run, as every scan after each call must', async () => {
    const id = randomUUID();
    const unmarked = await sleeper({ OTHER: 'x' });
    expect(findMarkedProcesses(id)).toEqual([]);
    const later = await sleeper({ RALPH_RUN_ID: id });
    expect(findMarkedProcesses(id)).toEqual([later]);
    expect(isProcessRunning(unmarked)).toBe(true);
  });

  it('finds nothing for an empty run id', () => {
    expect(findMarkedProcesses('')).toEqual([]);
  });
});
