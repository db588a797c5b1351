// How many processes a sandboxed call may have: bubblewrap has no pids cgroup of its own, so the
// command inside starts under `prlimit --nproc` (util-linux), which the agent cannot raise (hard
// and soft limit alike) and every process it starts inherits. A fork flood then fails inside the
// sandbox, the call ends, and the run goes on. The kernel counts RLIMIT_NPROC per user: in the
// user namespace of a sandbox run as an ordinary user, only the sandbox's processes; as the
// project's owner switched to by root, every process that user has on the host — so the limit
// is the owner's process count now plus the allowance. Docker gets the same allowance as its
// --pids-limit.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { RalphError } from '../errors.js';

/** Processes a sandboxed call may start, beyond those its user already has. */
export const SANDBOX_PROCESS_ALLOWANCE = 1024;

/** The number of processes `uid` runs now (0 where /proc is missing). */
export function processesOfUser(uid: number): number {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return 0;
  }
  let count = 0;
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (statSync(`/proc/${name}`).uid === uid) count++;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}

/** `command` run under prlimit with at most `limit` processes for its user. */
export function withProcessLimit(command: readonly string[], prlimit: string, limit: number): string[] {
  return [prlimit, `--nproc=${limit}`, '--', ...command];
}

/** prlimit (util-linux) from the system's own folders: it runs inside, from the read-only /usr. */
export function findPrlimit(): string {
  const found = ['/usr/bin/prlimit', '/bin/prlimit'].find((path) => existsSync(path));
  if (found) return found;
  throw new RalphError('sandbox_unavailable', "Sandbox bwrap needs prlimit (util-linux) to cap the agent's processes, and it is not installed", {
    details: [
      'Refusing to run the agent without a process limit. Nothing was run.',
      'Install it: apt-get install util-linux (Debian, Ubuntu), dnf install util-linux (Fedora)',
    ],
    hint: 'install util-linux',
  });
}
