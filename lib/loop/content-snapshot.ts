// The project's content as one id: a hash over the working tree as it is on disk — tracked and
// untracked non-ignored files, each by path, kind (file, executable, symlink) and content hash —
// without ralph's control and state files (`.ralph/**`, `.ralphrc`, the prompt wherever it is
// configured). The file list comes from `git ls-files --cached --others --exclude-standard` (a
// folder that is no repository is walked instead); the bytes are read and hashed here, never
// through git, so no filter runs and no object is written into the user's `.git`. A stat cache
// (size, mtime, ctime, inode, mode) keeps unchanged files from being read again: a loop after
// the first costs one git call and one lstat per file, the lstats made while git lists (the last
// list is stat'ed; git's output, compared whole, is parsed again only when it differs), and when
// no entry changed the last id is given again without hashing the list. A `touch` gives the
// same id; so does a commit, which changes HEAD but not the content. Progress is judged from these ids
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
  /** The filesystem calls (node:fs unless given). */
  fs?: SnapshotFs;
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

/** One file list as git gave it, with what is derived from it once rather than every loop. */
interface Listing {
  /** git's output as it came (compared whole: an unchanged list is not parsed again). */
  raw: string;
  paths: string[];
  fulls: string[];
  /** Indexes of `paths` in sorted order, made when first needed. */
  order?: Uint32Array;
}

/** A snapshot's entries, aligned with its listing's paths (undefined: no file there). */
interface Entries {
  listing: Listing;
  entries: Array<string | undefined>;
}

/** The filesystem calls the snapshot makes (tests count them). */
export interface SnapshotFs {
  lstatSync(path: string, options: { throwIfNoEntry: false }): Stats | undefined;
  openSync(path: string, flags: number): number;
  readSync(fd: number, buffer: Buffer, offset: number, length: number, position: null): number;
  closeSync(fd: number): void;
  readlinkSync(path: string): string;
}

const nodeFs: SnapshotFs = { lstatSync, openSync, readSync, closeSync, readlinkSync };

// Snapshots whose file lists are kept for changedPaths (the loop compares neighbours).
const KEPT_SNAPSHOTS = 4;
const CHUNK = 1 << 20;
// Files stat'ed between turns of the event loop while git lists the files.
const STAT_TURN = 2048;

export function createContentSnapshotter(options: ContentSnapshotOptions): ContentSnapshotter {
  const { projectDir } = options;
  const fs = options.fs ?? nodeFs;
  const isExcluded = exclusionTest(projectDir, options.excluded);
  // The stat cache, aligned with the last listing's paths.
  let listing: Listing | undefined;
  let cached: Array<CachedFile | undefined> = [];
  let previous: Entries | undefined;
  const kept = new Map<string, Entries>();
  let last: string | undefined;

  async function listFiles(): Promise<string | null> {
    // No fsmonitor, not even the user's own: it is a program, and listing needs none.
    const listed = await options.processRunner.run('git', ['-c', 'core.fsmonitor=false', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: projectDir,
      // No optional locks: nothing here may refresh the user's index as a side effect.
      env: { ...(options.env ?? process.env), GIT_OPTIONAL_LOCKS: '0' },
    });
    if (listed.spawnError) return null;
    if (listed.code !== 0) return walkFolder(projectDir).join('\0');
    return listed.stdout;
  }

  function makeListing(raw: string): Listing {
    // --cached lists a path once per merge stage: keep one.
    const paths = [...new Set(raw.split('\0'))].filter((p) => p !== '' && !isExcluded(p));
    const prefix = projectDir.endsWith(sep) ? projectDir : projectDir + sep;
    return { raw, paths, fulls: paths.map((p) => prefix + p) };
  }

  /** Which of the listing's cached files are unchanged on disk; the stats of the others. */
  async function statFiles(of: Listing): Promise<{ unchanged: Uint8Array; stats: Map<number, Stats | undefined> }> {
    const unchanged = new Uint8Array(of.fulls.length);
    const stats = new Map<number, Stats | undefined>();
    for (let i = 0; i < of.fulls.length; i++) {
      // In turns with the event loop, so git's output is read while it is still listing.
      if (i % STAT_TURN === STAT_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
      const st = fs.lstatSync(of.fulls[i]!, { throwIfNoEntry: false });
      const hit = cached[i];
      if (st && hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs && hit.ctimeMs === st.ctimeMs && hit.ino === st.ino && hit.mode === st.mode) {
        unchanged[i] = 1;
      } else {
        stats.set(i, st);
      }
    }
    return { unchanged, stats };
  }

  async function take(): Promise<ContentSnapshot> {
    // A file changed in the same clock tick as this snapshot may change again unseen by stat:
    // only entries older than the stamp are trusted next time (git's "racily clean" rule).
    const stamp = stampTime(options.stateDir);
    const listed = listFiles().catch(() => null);
    // While git lists, the last list's files are stat'ed: mostly it is the same list.
    const prior = listing;
    const seen = prior ? await statFiles(prior) : undefined;
    const raw = await listed;
    if (raw === null) return { id: null };
    const current = prior && raw === prior.raw ? prior : makeListing(raw);
    // Where each path was in the last list, when the list changed.
    const before = prior && current !== prior ? new Map(prior.paths.map((path, i) => [path, i])) : undefined;
    const nextCache: Array<CachedFile | undefined> = new Array(current.paths.length);
    const entries: Array<string | undefined> = new Array(current.paths.length);
    for (let i = 0; i < current.paths.length; i++) {
      const at = before ? before.get(current.paths[i]!) : prior ? i : undefined;
      if (at !== undefined && seen!.unchanged[at] === 1) {
        nextCache[i] = cached[at];
        entries[i] = cached[at]!.entry;
        continue;
      }
      // undefined: deleted since it was listed, or listed from the index only.
      const st = at !== undefined ? seen!.stats.get(at) : fs.lstatSync(current.fulls[i]!, { throwIfNoEntry: false });
      if (st === undefined) continue;
      const entry = await hashEntry(fs, current.fulls[i]!, st);
      entries[i] = entry;
      if (entry !== undefined && st.mtimeMs < stamp && st.ctimeMs < stamp) {
        nextCache[i] = { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, mode: st.mode, entry };
      }
    }
    listing = current;
    cached = nextCache;
    const now: Entries = { listing: current, entries };
    const changed = previous ? diffEntries(previous, now) : undefined;
    // Nothing changed in the same list: the id is the last one, not hashed again.
    const id = last !== undefined && changed?.length === 0 ? last : contentId(now);
    const since = last !== undefined && changed ? { id: last, changed } : undefined;
    previous = now;
    kept.delete(id);
    kept.set(id, now);
    while (kept.size > KEPT_SNAPSHOTS) kept.delete(kept.keys().next().value as string);
    last = id;
    return { id, ...(since ? { since } : {}) };
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
async function hashEntry(fs: SnapshotFs, full: string, st: Stats): Promise<string | undefined> {
  if (st.isSymbolicLink()) {
    try {
      return `link ${sha1(fs.readlinkSync(full))}`;
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
    fd = fs.openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const hash = createHash('sha1');
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, st.size)));
    for (let chunks = 0; ; chunks++) {
      const n = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
      // A big file is read in turns with the event loop, so a stop signal is still handled.
      if (chunks % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
    }
    return `${kind} ${hash.digest('hex')}`;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

function contentId({ listing, entries }: Entries): string {
  const order = (listing.order ??= sortedOrder(listing.paths));
  const hash = createHash('sha1');
  let text = '';
  for (const i of order) {
    const entry = entries[i];
    if (entry === undefined) continue;
    text += `${listing.paths[i]}\0${entry}\n`;
    if (text.length > 1 << 16) {
      hash.update(text);
      text = '';
    }
  }
  return hash.update(text).digest('hex');
}

function sortedOrder(paths: string[]): Uint32Array {
  const order = Uint32Array.from(paths.keys());
  return order.sort((a, b) => (paths[a]! < paths[b]! ? -1 : paths[a]! > paths[b]! ? 1 : 0));
}

/** Paths whose entry differs between two snapshots, sorted. */
function diffEntries(a: Entries, b: Entries): string[] {
  const changed = new Set<string>();
  if (a.listing === b.listing) {
    for (let i = 0; i < a.entries.length; i++) if (a.entries[i] !== b.entries[i]) changed.add(a.listing.paths[i]!);
  } else {
    const mapOf = ({ listing, entries }: Entries): Map<string, string> => {
      const map = new Map<string, string>();
      entries.forEach((entry, i) => entry !== undefined && map.set(listing.paths[i]!, entry));
      return map;
    };
    const x = mapOf(a);
    const y = mapOf(b);
    for (const [path, entry] of x) if (y.get(path) !== entry) changed.add(path);
    for (const path of y.keys()) if (!x.has(path)) changed.add(path);
  }
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
