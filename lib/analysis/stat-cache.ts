// The content snapshot's stat cache: what is kept of a file so that it is not read again while
// its stat is unchanged, and the filesystem's "now" that decides which stats can be trusted.

import { existsSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { ensureOwnDirectory, writeFileNoFollow } from '../state/no-follow.js';
import type { IndexedStat } from './stat-index.js';

/**
 * One file's cache: its stat data when it was hashed, kept as one text (a file of a large tree
 * costs the garbage collector a few objects, not one per number), and its entry. The numbers are
 * read back only when the private index is written.
 */
export class CachedFile {
  private constructor(
    /** The stat data as one text (statKey). */
    readonly stat: string,
    /** `<kind> <sha1>`: what the content id is built from. */
    readonly entry: string,
    /** git's whole-second comparison can vouch for it: it goes into the private index. */
    readonly indexed: boolean,
  ) {}

  static of(st: IndexedStat, entry: string, indexed: boolean): CachedFile {
    return new CachedFile(statKey(st), entry, indexed);
  }

  withIndexed(indexed: boolean): CachedFile {
    return new CachedFile(this.stat, this.entry, indexed);
  }

  /** The stat data as numbers (for the private index). */
  statData(): IndexedStat {
    const [size, mtimeMs, ctimeMs, ino, mode, dev, uid, gid] = this.stat.split(':').map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    return { size, mtimeMs, ctimeMs, ino, mode, dev, uid, gid };
  }
}

/** A stat's data as one text (joined: one flat string, not a string per part). */
export function statKey(st: IndexedStat): string {
  return [st.size, st.mtimeMs, st.ctimeMs, st.ino, st.mode, st.dev, st.uid, st.gid].join(':');
}

export function sameStat(hit: CachedFile, st: Stats): boolean {
  return hit.stat === statKey(st);
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
