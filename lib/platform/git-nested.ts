// What git names as the nested repositories of a work tree, for the git gateway (git-gateway.ts
// runs the two listings through its pinned environment): each gitlink of the index, and each
// untracked folder git lists as `dir/` that holds a repository of its own. Nothing here starts git.

import { lstatSync } from 'node:fs';
import { join } from 'node:path';

/** The index's entries, with their modes (a gitlink is 160000). */
export const NESTED_STAGE = ['ls-files', '-z', '--stage', '--full-name'] as const;
/** The untracked paths, a folder holding a repository listed as `dir/`. */
export const NESTED_OTHERS = ['ls-files', '-z', '--others', '--exclude-standard', '--full-name'] as const;

/** The nested repositories the two listings name, as paths from the work tree's top, sorted. */
export function parseNested(stage: string, others: string, workTree: string): string[] {
  const links = stage
    .split('\0')
    .filter((line) => line.startsWith('160000 '))
    .map((line) => line.slice(line.indexOf('\t') + 1));
  const folders = others
    .split('\0')
    .filter((path) => path.endsWith('/') && isRepository(join(workTree, path)))
    .map((path) => path.slice(0, -1));
  return [...new Set([...links, ...folders])].sort();
}

function isRepository(dir: string): boolean {
  try {
    lstatSync(join(dir, '.git'));
    return true;
  } catch {
    return false;
  }
}
