// Processes that carry the run's mark. An agent's process can leave its process group
// (`setsid`, a daemon), so killing the group misses it; its environment still holds the
// variable ralph set for the agent (RALPH_RUN_ID), which children inherit. On Linux these are
// found in /proc/<pid>/environ (only our own user's are readable) and killed. A process that
// cleared its environment is not found: the sandboxes' pid namespaces cover that case.
// The scan runs after every agent call over every process of the machine, so each one costs
// few system calls: the environ file is opened (another user's fails there, unless we are
// root), its owner checked on the open file, and read into one buffer reused for all.

import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';

export const RUN_MARK_VARIABLE = 'RALPH_RUN_ID';

const CHUNK = 64 * 1024;
let scratch = Buffer.alloc(CHUNK);

/** Pids (not ours) whose environment holds `RALPH_RUN_ID=<runId>`; [] where /proc is missing. */
export function findMarkedProcesses(runId: string): number[] {
  if (runId === '') return [];
  const entry = Buffer.from(`${RUN_MARK_VARIABLE}=${runId}\0`);
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid || pid <= 1) continue;
    const environ = readOwnEnviron(pid, uid);
    if (environ !== undefined && carries(environ, entry)) pids.push(pid);
  }
  return pids;
}

/** Whether the NUL-separated environment holds `entry` (`NAME=value\0`) as a whole variable. */
function carries(environ: Buffer, entry: Buffer): boolean {
  for (let at = environ.indexOf(entry); at !== -1; at = environ.indexOf(entry, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true;
  }
  return false;
}

/**
 * The process's environment (a view of the shared buffer, valid until the next call), or
 * undefined when it is gone or not `uid`'s.
 */
function readOwnEnviron(pid: number, uid: number | undefined): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/environ`, 'r');
  } catch {
    return undefined; // gone meanwhile, or not ours to read
  }
  try {
    if (uid !== undefined && fstatSync(fd).uid !== uid) return undefined;
    let length = 0;
    for (;;) {
      if (length === scratch.length) scratch = Buffer.concat([scratch, Buffer.alloc(CHUNK)]);
      const read = readSync(fd, scratch, length, scratch.length - length, null);
      if (read === 0) return scratch.subarray(0, length);
      length += read;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** SIGKILLs every process carrying the run's mark; returns how many were signalled. */
export function killMarkedProcesses(runId: string): number {
  let killed = 0;
  for (const pid of findMarkedProcesses(runId)) {
    try {
      process.kill(pid, 'SIGKILL');
      killed++;
    } catch {
      // gone meanwhile
    }
  }
  return killed;
}
