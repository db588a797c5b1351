// Where the nested git repositories of a project are: every folder holding a `.git` entry (a
// folder, a gitfile or a link), at any depth, in folders git ignores as well, and inside other
// nested repositories — found by walking the folders on disk, never by asking git (which lists
// neither what it ignores nor what lies inside a repository of its own). The walk runs after
// every loop, so it costs one lstat per folder: a folder is read again only when its own stat
// changed (a `.git` made in it, or a folder added, changes it), or when it changed too recently
// for its stat to be trusted (the clock of a file's times is coarse). Links are never followed,
// and `.git` folders are not walked into.

import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';

interface Folder {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** Its subfolders (not `.git`), sorted. */
  folders: string[];
  /** It holds a `.git` entry of any kind. */
  repository: boolean;
}

export interface RepositoryWalker {
  /** The nested repositories now (project-relative, without the project itself), parents first. */
  find(): string[];
}

// A folder whose stat changed less than this long before the walk is read again next time.
const TRUSTED_AFTER_MS = 2000;

/** `skip`: project-relative folders that are not walked (ralph's own, holding what it moved aside). */
export function createRepositoryWalker(projectDir: string, skip: readonly string[] = [], now: () => number = Date.now): RepositoryWalker {
  let cache = new Map<string, Folder>();
  const skipped = new Set(skip.map((dir) => dir.replace(/\/+$/, '')));
  return {
    find() {
      const trusted = now() - TRUSTED_AFTER_MS;
      const next = new Map<string, Folder>();
      const found: string[] = [];
      // Depth first with a stack of its own (a deep tree is no recursion), in sorted order.
      const stack = [''];
      while (stack.length > 0) {
        const rel = stack.pop()!;
        const st = lstatOrUndefined(rel === '' ? projectDir : join(projectDir, rel));
        if (!st?.isDirectory()) continue;
        const folder = sameFolder(cache.get(rel), st) ?? readFolder(join(projectDir, rel), st);
        if (st.mtimeMs < trusted && st.ctimeMs < trusted) next.set(rel, folder);
        if (folder.repository && rel !== '') found.push(rel);
        for (let i = folder.folders.length - 1; i >= 0; i--) {
          const sub = rel === '' ? folder.folders[i]! : `${rel}/${folder.folders[i]!}`;
          if (!skipped.has(sub)) stack.push(sub);
        }
      }
      cache = next;
      return found;
    },
  };
}

function sameFolder(folder: Folder | undefined, st: Stats): Folder | undefined {
  return folder && folder.mtimeMs === st.mtimeMs && folder.ctimeMs === st.ctimeMs && folder.ino === st.ino ? folder : undefined;
}

function readFolder(full: string, st: Stats): Folder {
  const folders: string[] = [];
  let repository = false;
  try {
    for (const entry of readdirSync(full, { withFileTypes: true })) {
      if (entry.name === '.git') repository = true;
      else if (entry.isDirectory()) folders.push(entry.name);
    }
  } catch {
    // Gone or unreadable since its stat: nothing below it is found.
  }
  folders.sort();
  return { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, folders, repository };
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
