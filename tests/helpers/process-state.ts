// Whether a process still runs. A zombie (dead, waiting for its parent or init to reap it)
// counts as gone: it holds no resources and runs no code. Also: the processes a test started.

import { readdirSync, readFileSync } from 'node:fs';

export function isProcessRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Running processes whose environment holds `entry` (`NAME=value`): everything a test's child
 * started, however deep or detached, when the test gave it a variable of its own. Only this
 * user's processes can be read; that is all a test starts.
 */
export function processesWithEnv(entry: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry) && isProcessRunning(Number(name))) found.push(Number(name));
    } catch {
      // gone meanwhile, or another user's
    }
  }
  return found;
}
