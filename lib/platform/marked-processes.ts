// Processes that carry the run's mark. An agent's process can leave its process group
// (`setsid`, a daemon), so killing the group misses it; its environment still holds the
// variable ralph set for the agent (RALPH_RUN_ID), which children inherit. On Linux these are
// found in /proc/<pid>/environ (only our own user's are readable, unless we are root: then every
// user's is, the agent's run as the project's owner included) and killed. A process that
// cleared its environment is not found: the sandboxes' pid namespaces cover that case.
// The scan runs after every agent call over every process of the machine, so each one costs
// few system calls: the environ file is opened (another user's fails there, unless we are
// root), its owner checked on the open file, and read into one buffer reused for all. A
// process's environment is set when it starts, so one found without the mark is not read again
// in later scans of the run while it is the same process: the same pid with the same /proc
// inode (a new process under a reused pid gets a new inode). A process rewriting its own
// environment in memory could add the mark later; one doing that could as well remove it.

import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';

export const RUN_MARK_VARIABLE = 'RALPH_RUN_ID';

const CHUNK = 64 * 1024;
let scratch = Buffer.alloc(CHUNK);

/** What a scan reads of /proc (tests give their own). */
export interface ProcReader {
  /** The names in /proc; throws where there is no /proc. */
  list(): string[];
  /** Which process `pid` is now (its /proc inode), or undefined when it is gone. */
  identity(pid: number): number | undefined;
  /** The environment of `pid` when it is `uid`'s (any with no uid), or undefined. */
  environ(pid: number, uid: number | undefined): Buffer | undefined;
}

export const systemProc: ProcReader = {
  list: () => readdirSync('/proc'),
  identity: (pid) => lstatSync(`/proc/${pid}`, { throwIfNoEntry: false })?.ino,
  environ: readOwnEnviron,
};

/** Runs whose unmarked processes are remembered (a process runs several at once with --parallel). */
const REMEMBERED_RUNS = 8;

/** Per run id: the processes found without its mark, pid to /proc inode. */
const unmarked = new Map<string, Map<number, number>>();

/** Pids (not ours) whose environment holds `RALPH_RUN_ID=<runId>`; [] where /proc is missing. */
export function findMarkedProcesses(runId: string, proc: ProcReader = systemProc): number[] {
  if (runId === '') return [];
  const entry = Buffer.from(`${RUN_MARK_VARIABLE}=${runId}\0`);
  // Root runs the agent as the project's owner: every process's environment is looked at.
  const ownUid = process.getuid?.();
  const uid = ownUid === 0 ? undefined : ownUid;
  let names: string[];
  try {
    names = proc.list();
  } catch {
    return [];
  }
  const before = unmarked.get(runId);
  const now = new Map<number, number>();
  const pids: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid || pid <= 1) continue;
    const identity = proc.identity(pid);
    if (identity === undefined) continue;
    if (before?.get(pid) === identity) {
      now.set(pid, identity);
      continue;
    }
    const environ = proc.environ(pid, uid);
    if (environ !== undefined && carries(environ, entry)) pids.push(pid);
    // An empty environment is read again next time: a process in the middle of an exec shows none.
    else if (environ === undefined || environ.length > 0) now.set(pid, identity);
  }
  remember(runId, now);
  return pids;
}

function remember(runId: string, seen: Map<number, number>): void {
  unmarked.delete(runId);
  unmarked.set(runId, seen);
  for (const oldest of unmarked.keys()) {
    if (unmarked.size <= REMEMBERED_RUNS) break;
    unmarked.delete(oldest);
  }
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
