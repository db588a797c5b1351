// After each sandboxed call: no setuid or setgid file the agent made survives. The agent can
// chmod u+s a program it wrote in the project; the sandbox mounts it nosuid, but on the host any
// user who runs it would run as its owner (root, when the agent ran as root). Every process of the
// call is gone by now (the pid namespace or the container died with it), so nothing races the
// walk. Links are not followed, nor folders on another device entered.

import { chmodSync, lstatSync, readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../platform/deps.js';

const SET_ID_BITS = 0o6000;

/** Clears the setuid and setgid bits of every regular file under `root`; returns the files changed. */
export function stripSetuidFiles(root: string): string[] {
  let top: Stats;
  try {
    top = lstatSync(root);
  } catch {
    return [];
  }
  const stripped: string[] = [];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      let stats: Stats;
      try {
        stats = lstatSync(path);
      } catch {
        continue;
      }
      if (stats.dev !== top.dev) continue;
      if (stats.isDirectory()) walk(path);
      else if (stats.isFile() && (stats.mode & SET_ID_BITS) !== 0) {
        chmodSync(path, stats.mode & 0o777 & ~SET_ID_BITS);
        stripped.push(path);
      }
    }
  };
  if (top.isDirectory()) walk(root);
  return stripped;
}

/** stripSetuidFiles, and the log says which files it changed. */
export function stripPlantedSetuid(projectDir: string, logger: Logger): void {
  const stripped = stripSetuidFiles(projectDir);
  if (stripped.length === 0) return;
  const shown = stripped
    .slice(0, 5)
    .map((path) => path.slice(projectDir.length + 1))
    .join(', ');
  logger.warn(`Cleared the setuid/setgid bit of ${stripped.length} file(s) made in the sandbox: ${shown}${stripped.length > 5 ? ', …' : ''}`);
}
