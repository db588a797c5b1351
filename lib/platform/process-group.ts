// Process groups by id, for an agent group left behind by a ralph that was killed with -9: is it
// still there, is its leader the process we started (pids are reused), and stopping it — SIGTERM,
// then SIGKILL after a grace period. We are not the parent of such a group, so there is no exit
// event to wait on: its end is polled for.

import { readdirSync, readFileSync } from 'node:fs';

const POLL_MS = 50;
/** After SIGKILL the kernel ends a group at once; this only bounds a wait for a stuck one. */
const AFTER_KILL_MS = 2000;

export { readProcessExecutable, readProcessStartTime } from '../state/process-alive.js';

/** Our own process group id (/proc/self/stat field 5), or undefined where /proc is missing. */
export function readOwnProcessGroup(): number | undefined {
  const pgrp = readStatFields('self')?.[2];
  return pgrp === undefined ? undefined : Number(pgrp);
}

/** Whether the group exists, zombies included (EPERM: it does, as another user). */
function isProcessGroupAlive(pgid: number): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGTERM to the group, SIGKILL after graceMs if anything still runs; resolves how it ended. */
export async function stopProcessGroup(pgid: number, graceMs: number): Promise<'terminated' | 'killed'> {
  signalGroup(pgid, 'SIGTERM');
  if (await waitForGroupGone(pgid, graceMs)) return 'terminated';
  signalGroup(pgid, 'SIGKILL');
  await waitForGroupGone(pgid, AFTER_KILL_MS);
  return 'killed';
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

async function waitForGroupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isProcessGroupRunning(pgid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

/**
 * Whether a process of the group still runs. A killed member stays a zombie until its parent
 * (init, or no one in some containers) reaps it: signal 0 still finds it, though it runs no
 * code, so on Linux the members are read from /proc and zombies do not count.
 */
export function isProcessGroupRunning(pgid: number): boolean {
  if (!isProcessGroupAlive(pgid)) return false;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return true;
  }
  return pids.some((pid) => {
    const fields = readStatFields(pid);
    return fields !== undefined && Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X';
  });
}

/** Fields after the `(comm)` of /proc/<pid>/stat: [0] is field 3 (state). */
function readStatFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}
