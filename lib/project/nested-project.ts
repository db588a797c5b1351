// Whether a new project would be created inside another: a Ralph project (a run there would
// take the new one for files of its own, and its agent could change them) or a git repository
// (the new one gets a repository of its own, which the outer one sees as a nested repository,
// not as files). ralph-setup and ralph-import say so before creating anything. Reads only the
// file system: a `.ralph/` folder or a `.git` entry in a folder above.

import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { quoteForShell } from '../text/shell-quote.js';

export interface EnclosingProjects {
  /** The nearest folder above (or at) the start with a `.ralph/` folder. */
  ralphRoot?: string;
  /** The nearest folder above (or at) the start with a `.git` folder or file. */
  gitRoot?: string;
}

export function findEnclosingProjects(start: string): EnclosingProjects {
  const found: EnclosingProjects = {};
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (found.ralphRoot === undefined && isDirectory(join(dir, '.ralph'))) found.ralphRoot = dir;
    if (found.gitRoot === undefined && existsSync(join(dir, '.git'))) found.gitRoot = dir;
    if (dirname(dir) === dir) return found;
  }
}

/** What to tell the user before creating `target` in `parentDir` (none when it is nested in nothing). */
export function nestedProjectWarnings(parentDir: string, target: string): string[] {
  const { ralphRoot, gitRoot } = findEnclosingProjects(parentDir);
  const warnings: string[] = [];
  if (ralphRoot !== undefined) {
    warnings.push(
      `${target} is inside the Ralph project ${ralphRoot}: it becomes a project nested in it, whose files a run there sees as its own (to enable Ralph in a folder of that project instead, run ralph-enable in it)`,
    );
  } else if (gitRoot !== undefined) {
    warnings.push(
      `${target} is inside the git repository ${gitRoot}: it gets a repository of its own, which that one sees as a nested repository, not as its files (to use that repository, run ralph-enable in it instead)`,
    );
  }
  return warnings;
}

/**
 * The hint for a command run where there is no `.ralph/` (`cd src && ralph`): the Ralph project
 * above to cd into, else `fallback`. ralph-enable there would make a second project nested in it.
 */
export function notAProjectHint(dir: string, fallback: string): string {
  const above = findEnclosingProjects(dir).ralphRoot;
  if (above === undefined || above === resolve(dir)) return fallback;
  return `this folder is inside the Ralph project ${above}: cd ${quoteForShell(above)}, and run it there (ralph-enable here would make a project nested in it)`;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
