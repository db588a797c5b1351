// The project's content as one id: a hash over the working tree as it is on disk — tracked and
// untracked non-ignored files, each by path, kind (file, executable, symlink) and content hash —
// without ralph's control and state files (`.ralph/**`, `.ralphrc`, the prompt wherever it is
// configured). The file list comes from `git ls-files --cached --others --exclude-standard` (a
// folder that is no repository is walked instead); the bytes are read and hashed here, never
// through git, so no filter runs and no object is written into the user's `.git`. A stat cache
// (size, mtime, ctime, inode, mode) keeps unchanged files from being read again: a loop after
// the first costs one git call and one lstat per file. A `touch` gives the same id; so does a
// commit, which changes HEAD but not the content. Progress is judged from these ids
// (lib/core/progress-evidence.ts).

import { createHash } from 'node:crypto';
import { closeSync, constants, existsSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { ProcessRunner } from '../platform/process.js';
import { ensureOwnDirectory, writeFileNoFollow } from '../state/no-follow.js';

export interface ContentSnapshot {
  /** Id of the content; null when it could not be measured. */
  id: string | null;
  /** The previous snapshot's id and the paths changed since. */
  since?: { id: string; changed: string[] };
}

export interface ContentSnapshotOptions {
  projectDir: string;
  /** ralph's own folder for the snapshot's timestamp file. */
  stateDir: string;
  /** Control files to leave out (absolute or project-relative); directories leave out all below. */
  excluded: Array<{ path: string; directory: boolean }>;
  processRunner: ProcessRunner;
  env?: NodeJS.ProcessEnv;
}

export interface ContentSnapshotter {
  take(): Promise<ContentSnapshot>;
  /** Paths whose content differs between two snapshots (relative to the project). */
  changedPaths(from: ContentSnapshot, to: ContentSnapshot): Promise<string[]>;
}

interface CachedFile {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
  /** `<kind> <sha1>`: what the content id is built from. */
  entry: string;
}

// Snapshots whose file lists are kept for changedPaths (the loop compares neighbours).
const KEPT_SNAPSHOTS = 4;
const CHUNK = 1 << 20;

export function createContentSnapshotter(options: ContentSnapshotOptions): ContentSnapshotter {
  const { projectDir } = options;
  const isExcluded = exclusionTest(projectDir, options.excluded);
  const cache = new Map<string, CachedFile>();
  const kept = new Map<string, Map<string, string>>();
  let last: string | undefined;

  async function listFiles(): Promise<string[] | null> {
    const listed = await options.processRunner.run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: projectDir,
      // No optional locks: nothing here may refresh the user's index as a side effect.
      env: { ...(options.env ?? process.env), GIT_OPTIONAL_LOCKS: '0' },
    });
    if (listed.spawnError) return null;
    if (listed.code !== 0) return walkFolder(projectDir);
    // --cached lists a path once per merge stage: keep one.
    return [...new Set(listed.stdout.split('\0'))].filter((p) => p !== '');
  }

  async function take(): Promise<ContentSnapshot> {
    const files = await listFiles().catch(() => null);
    if (files === null) return { id: null };
    // A file changed in the same clock tick as this snapshot may change again unseen by stat:
    // only entries older than the stamp are trusted next time (git's "racily clean" rule).
    const stamp = stampTime(options.stateDir);
    const entries = new Map<string, string>();
    const seen = new Set<string>();
    for (const path of files) {
      if (isExcluded(path)) continue;
      seen.add(path);
      // The common case, a file unchanged since the last snapshot, stays synchronous.
      const found = describeFile(path, stamp);
      const entry = typeof found === 'string' || found === undefined ? found : await found;
      if (entry !== undefined) entries.set(path, entry);
    }
    for (const path of cache.keys()) if (!seen.has(path)) cache.delete(path);
    const id = contentId(entries);
    const previous = last === undefined ? undefined : kept.get(last);
    const since = last !== undefined && previous ? { id: last, changed: diffEntries(previous, entries) } : undefined;
    kept.delete(id);
    kept.set(id, entries);
    while (kept.size > KEPT_SNAPSHOTS) kept.delete(kept.keys().next().value as string);
    last = id;
    return { id, ...(since ? { since } : {}) };
  }

  function describeFile(path: string, stamp: number): string | undefined | Promise<string | undefined> {
    const full = join(projectDir, path);
    // undefined: deleted since it was listed, or listed from the index only.
    const st: Stats | undefined = lstatSync(full, { throwIfNoEntry: false });
    if (st === undefined) return undefined;
    const hit = cache.get(path);
    if (hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs && hit.ctimeMs === st.ctimeMs && hit.ino === st.ino && hit.mode === st.mode) {
      return hit.entry;
    }
    return hashEntry(full, st).then((entry) => {
      if (entry !== undefined && st.mtimeMs < stamp && st.ctimeMs < stamp) {
        cache.set(path, { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, mode: st.mode, entry });
      } else {
        cache.delete(path);
      }
      return entry;
    });
  }

  return {
    take,
    async changedPaths(from, to) {
      if (from.id === null || to.id === null || from.id === to.id) return [];
      if (to.since?.id === from.id) return to.since.changed;
      const a = kept.get(from.id);
      const b = kept.get(to.id);
      return a && b ? diffEntries(a, b) : [];
    },
  };
}

/** `<kind> <sha1>` of one file as it is on disk; undefined for what is no file (a folder, a fifo). */
async function hashEntry(full: string, st: Stats): Promise<string | undefined> {
  if (st.isSymbolicLink()) {
    try {
      return `link ${sha1(readlinkSync(full))}`;
    } catch {
      return undefined;
    }
  }
  // A submodule or a nested repository is listed as a folder: its content is its own.
  if (st.isDirectory()) return 'folder';
  // Never opened: a fifo would block, a device could be anything.
  if (!st.isFile()) return undefined;
  const kind = st.mode & 0o100 ? 'exec' : 'file';
  let fd: number;
  try {
    fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const hash = createHash('sha1');
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, st.size)));
    for (let chunks = 0; ; chunks++) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
      // A big file is read in turns with the event loop, so a stop signal is still handled.
      if (chunks % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
    }
    return `${kind} ${hash.digest('hex')}`;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function contentId(entries: Map<string, string>): string {
  const hash = createHash('sha1');
  for (const path of [...entries.keys()].sort()) hash.update(`${path}\0${entries.get(path)}\n`);
  return hash.digest('hex');
}

function diffEntries(a: Map<string, string>, b: Map<string, string>): string[] {
  const changed = new Set<string>();
  for (const [path, entry] of a) if (b.get(path) !== entry) changed.add(path);
  for (const path of b.keys()) if (!a.has(path)) changed.add(path);
  return [...changed].sort();
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

// The filesystem's "now": the mtime of a file ralph just wrote in its own folder.
function stampTime(stateDir: string): number {
  try {
    // ralph's own folder, checked not to be a link; its files are written without following one.
    ensureOwnDirectory(stateDir);
    // Ignores itself, so the stamp never shows in `git status` or lands in a commit, whatever
    // the project's .gitignore says.
    const ignore = join(stateDir, '.gitignore');
    if (!existsSync(ignore)) writeFileNoFollow(ignore, '*\n');
    const file = join(stateDir, 'stamp');
    writeFileNoFollow(file, '');
    return statSync(file).mtimeMs;
  } catch {
    return -Infinity; // nothing is trusted: every file is read again next time
  }
}

/** Every file below `dir` (project-relative, `/`-separated), for a folder that is no repository. */
function walkFolder(dir: string): string[] {
  const out: string[] = [];
  const visit = (rel: string): void => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== '.git') visit(path);
      }
      else out.push(path);
    }
  };
  visit('');
  return out;
}

/** Whether a project-relative path is one of the excluded control files (or below one of the folders). */
export function exclusionTest(projectDir: string, excluded: ContentSnapshotOptions['excluded']): (path: string) => boolean {
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
