// Whether a process still runs. A zombie (dead, waiting for its parent or init to reap it)
// counts as gone: it holds no resources and runs no code.

import { readFileSync } from 'node:fs';

export function isProcessRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
