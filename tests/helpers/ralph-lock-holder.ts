// A live process that passes for the ralph holding a project lock: its command line names ralph
// and the lock records its start time, as a real ralph's lock does. A lock naming any other live
// process (the test runner, say) is taken over as stale, since the agent could have forged it.

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface RalphLockHolder {
  readonly pid: number;
  /** Kills the holder; safe to call twice. */
  stop(): void;
}

/** Starts the holder and writes `lockPath` naming it; resolves once its command line is its own. */
export async function holdLockAsRalph(lockPath: string): Promise<RalphLockHolder> {
  const script = "process.send('ready', () => process.disconnect()); setInterval(() => {}, 1 << 30);";
  const child = spawn(process.execPath, ['-e', script, 'ralph-lock-holder'], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('error', reject);
  });
  const pid = child.pid!;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  writeFileSync(lockPath, JSON.stringify({ pid, startTime, startedAt: new Date().toISOString(), host: hostname() }));
  return {
    pid,
    stop() {
      child.kill('SIGKILL');
    },
  };
}
