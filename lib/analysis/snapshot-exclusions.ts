// Which paths the content snapshot leaves out: ralph's control and state files, given as files or
// folders, absolute or relative to the project.

import { isAbsolute, join, relative, sep } from 'node:path';

/** Whether a project-relative path is one of the excluded control files (or below one of the folders). */
export function exclusionTest(projectDir: string, excluded: ReadonlyArray<{ path: string; directory: boolean }>): (path: string) => boolean {
  const files = new Set<string>();
  const dirs: string[] = [];
  for (const { path, directory } of excluded) {
    const rel = relative(projectDir, isAbsolute(path) ? path : join(projectDir, path));
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue;
    const posix = rel.split(sep).join('/');
    if (directory) dirs.push(`${posix}/`);
    else files.add(posix);
  }
  return (path) => files.has(path) || dirs.some((d) => path.startsWith(d));
}
