// The content snapshot's stat cache: what is kept of a file so that it is not read again while
// its stat is unchanged, and the filesystem's "now" that decides which stats can be trusted.

import { existsSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { ensureOwnDirectory, writeFileNoFollow } from '../state/no-follow.js';
import type { IndexedStat } from './stat-index.js';

export interface CachedFile extends IndexedStat {
  /** `<kind> <sha1>`: what the content id is built from. */
  entry: string;
  /** git's whole-second comparison can vouch for it: it goes into the private index. */
  indexed: boolean;
}

export function sameStat(hit: CachedFile, st: Stats): boolean {
  return hit.size === st.size && hit.mtimeMs === st.mtimeMs && hit.ctimeMs === st.ctimeMs && hit.ino === st.ino && hit.mode === st.mode;
}

// The filesystem's "now": the mtime of a file ralph just wrote in its own folder.
export function stampTime(stateDir: string, clock: (() => number) | undefined): number {
  try {
    // ralph's own folder, checked not to be a link; its files are written without following one.
    ensureOwnDirectory(stateDir);
    // Ignores itself, so the stamp never shows in `git status` or lands in a commit, whatever
    // the project's .gitignore says.
    const ignore = join(stateDir, '.gitignore');
    if (!existsSync(ignore)) writeFileNoFollow(ignore, '*\n');
    if (clock) return clock();
    const file = join(stateDir, 'stamp');
    writeFileNoFollow(file, '');
    return statSync(file).mtimeMs;
  } catch {
    return -Infinity; // nothing is trusted: every file is read again next time
  }
}
