// Processes that carry the run's mark. An agent's process can leave its process group
// (`setsid`, a daemon), so killing the group misses it; its environment still holds the
// variable ralph set for the agent (RALPH_RUN_ID), which children inherit. On Linux these are
// found in /proc/<pid>/environ (only our own user's are readable) and killed. A process that
// cleared its environment is not found: the sandboxes' pid namespaces cover that case.

import { readdirSync, readFileSync, statSync } from 'node:fs';

export const RUN_MARK_VARIABLE = 'RALPH_RUN_ID';

/** Pids (not ours) whose environment holds `RALPH_RUN_ID=<runId>`; [] where /proc is missing. */
export function findMarkedProcesses(runId: string): number[] {
  if (runId === '') return [];
  const entry = Buffer.from(`${RUN_MARK_VARIABLE}=${runId}\0`);
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (pid === process.pid || pid <= 1) continue;
    try {
      if (uid !== undefined && statSync(`/proc/${name}`).uid !== uid) continue;
      const environ = readFileSync(`/proc/${name}/environ`);
      if (environ.indexOf(entry) === 0 || environ.includes(Buffer.concat([Buffer.from('\0'), entry]))) pids.push(pid);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
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
