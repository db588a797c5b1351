// Two ralph processes in one project: started at the same instant, exactly one runs and the other
// refuses (exit 1, naming the running pid) without touching the running loop's state; started
// while a loop runs, the second refuses too; once the first is gone, the next one starts.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { binPath, runCli } from '../helpers/run-cli.js';
import type { TmpProject } from '../helpers/tmp-project.js';
import { checkStateFiles, createFastAgent, faultProject } from './fast-agent.js';

// The agent prints its first line and then hangs, so a loop holds the lock until stopped.
const agent = createFastAgent();
const hanging = { ...agent.env, FAST_AGENT_HANG: '1' };
const cleanups: Array<() => void> = [];
afterAll(async () => {
  await agent.killLeftovers();
  for (const c of cleanups) c();
  agent.cleanup();
});

interface Started {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

function start(project: TmpProject): Started {
  const child = spawn(process.execPath, [binPath('ralph'), '--max-loops', '3'], {
    cwd: project.dir,
    env: { ...process.env, ...hanging },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function project(): TmpProject {
  const p = faultProject();
  cleanups.push(() => p.cleanup());
  return p;
}

const lockPid = (p: TmpProject) => (JSON.parse(readFileSync(p.path('.ralph/.ralph.lock'), 'utf8')) as { pid: number }).pid;

describe('two ralph loops in one project', () => {
  it('started at the same instant: one runs, the other refuses and changes nothing (3 races)', async () => {
    for (let round = 0; round < 3; round++) {
      const p = project();
      const a = start(p);
      const b = start(p);
      // The loser exits by itself; the winner runs its agent until stopped.
      const loser = await Promise.race([a.exited.then(() => a), b.exited.then(() => b)]);
      const winner = loser === a ? b : a;
      expect(await loser.exited, loser.stderr()).toBe(1);
      expect(loser.stderr()).toMatch(/Error: Another ralph loop is already running in this project \(pid \d+\)/);
      await waitFor(() => existsSync(p.path('.ralph/status.json')) && existsSync(p.path('.ralph/live.log')), 'the winner to run its agent');
      expect(lockPid(p)).toBe(winner.child.pid);
      const status = JSON.parse(readFileSync(p.path('.ralph/status.json'), 'utf8')) as { pid?: number; status?: string };
      expect(status).toMatchObject({ pid: winner.child.pid, status: 'running' });
      winner.child.kill('SIGTERM');
      expect(await winner.exited).toBe(143);
      expect(existsSync(p.path('.ralph/.ralph.lock'))).toBe(false);
      expect(checkStateFiles(p.dir)).toEqual([]);
    }
  }, 60_000);

  it('started while a loop runs: refuses; after the loop stops, a new one starts', async () => {
    const p = project();
    const first = start(p);
    await waitFor(() => existsSync(p.path('.ralph/live.log')), 'the first loop to run its agent');
    const before = readFileSync(p.path('.ralph/status.json'), 'utf8');
    const second = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env: agent.env });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`Another ralph loop is already running in this project (pid ${first.child.pid})`);
    expect(second.stderr).toMatch(/hint: stop it first/);
    expect(readFileSync(p.path('.ralph/status.json'), 'utf8')).toBe(before);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(143);
    const third = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env: agent.env });
    expect(third.code, third.stderr).toBe(3);
  }, 60_000);
});

/** The pid of a process that has exited (the lock's holder, killed). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((r) => child.on('close', r));
  return child.pid!;
}

describe('a lock left behind by a killed ralph', () => {
  const staleLock = async (p: TmpProject) =>
    writeFileSync(p.path('.ralph/.ralph.lock'), JSON.stringify({ pid: await deadPid(), startedAt: new Date().toISOString(), host: hostname() }));

  it('is taken over with a warning', async () => {
    const p = project();
    await staleLock(p);
    const r = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env: agent.env });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/Took over a stale lock from pid \d+/);
  });

  it('is taken over even when that ralph was killed in the middle of taking over a lock itself', async () => {
    // kill -9 between creating the takeover guard (O_EXCL) and writing its pid leaves it empty.
    const p = project();
    await staleLock(p);
    const guard = p.path('.ralph/.ralph.lock.break');
    writeFileSync(guard, '');
    const old = Date.now() / 1000 - 60;
    utimesSync(guard, old, old);
    const r = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env: agent.env });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/Took over a stale lock from pid \d+/);
    expect(existsSync(guard)).toBe(false);
  });
});
