// Whether a pid names a running process, for the project lock and for cleaning temp files
// left by killed writers; and which process it is (start time, executable), since pids are
// reused and the agent can write the lock.

import { readFileSync, readlinkSync } from 'node:fs';

/** Signal 0 checks existence only; EPERM means it exists but belongs to another user. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A process's start time in clock ticks since boot (/proc/<pid>/stat field 22), or undefined
 * where /proc is missing (not Linux) or the process is gone. With the pid it names one process.
 */
export function readProcessStartTime(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The executable a process runs (/proc/<pid>/exe), or undefined where it cannot be read. */
export function readProcessExecutable(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

/**
 * Whether the live process `pid` is the ralph a lock names: ourselves, or a process whose start
 * time is the recorded one (when one was recorded) and whose command line names ralph. A lock
 * the agent forged may name any pid (1, the user's editor); that one is not ralph. Where /proc
 * cannot tell, a live pid counts as ralph.
 */
export function isRalphProcess(pid: number, startTime: string | undefined): boolean {
  if (pid === process.pid) return true;
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true;
  }
  if (startTime !== undefined && readProcessStartTime(pid) !== startTime) return false;
  return cmdline.split('\0').some((arg) => /ralph/.test(arg));
}
