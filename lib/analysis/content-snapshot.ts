// The project's content as one id: a hash over the working tree as it is on disk — tracked and
// untracked non-ignored files, each by path, kind (file, executable, symlink) and content hash —
// without ralph's control and state files (`.ralph/**`, `.ralphrc`, the prompt wherever it is
// configured). The file list comes from `git ls-files --cached --others --exclude-standard` (a
// folder that is no repository is walked instead); the bytes are read and hashed here, never
// through git, so no filter runs and no object is written into the user's `.git`. A stat cache
// (size, mtime, ctime, inode, mode) keeps unchanged files from being read again. In a loop after
// the first, git itself names the files whose stat changed since: `git diff-files` against a
// private index of the cached stat data in ralph's own folder (lib/analysis/stat-index.ts), run while
// git lists the files; only those are lstat'ed here. Where that cannot run (no repository, the
// first snapshot, git failed), every file of the last list is lstat'ed while git lists. git's
// list is compared with the last one as its bytes come; where it differs, only the part between
// the head and tail the two lists share is decoded (listing-delta.ts), and the id, a sum of one
// hash per file, is updated by the files that changed (content-entries.ts). A `touch` gives the
// same id; so does a commit, which changes HEAD but not the content. Progress is judged from these ids
// (lib/analysis/progress-evidence.ts).

import { existsSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ProcessRunner } from '../platform/process.js';
import { ensureOwnDirectory, writeFileNoFollow } from '../state/no-follow.js';
import { buildStatIndex, changedByGit, indexable, setIndexEntry, writeStatIndex, type IndexedStat, type StatIndex } from './stat-index.js';
import type { ContentMemoryState } from './progress-evidence.js';
import {
  changedBetween,
  changedSince,
  contentId,
  entriesSum,
  hashEntry,
  inNested,
  nodeFs,
  type Entries,
  type Listing,
  type SnapshotFs,
} from './content-entries.js';
import { alignSlots, folderEntries, makeListing, oldPlace, relist, slotsFor, walkFolder } from './listing-delta.js';
import { changedFolderLister } from './changed-folders.js';
import type { FolderWalker } from '../platform/folder-walk.js';
import { createNestedWalker } from './nested-walk.js';

export type { SnapshotFs };

/** The run's content measure: its snapshotter, the ids seen in the run, the latest snapshot. */
export interface LoopContentState {
  snapshotter: ContentSnapshotter;
  memory: ContentMemoryState;
  /** The latest snapshot: the start of the next loop. */
  last?: ContentSnapshot;
  /** The latest measured loop reached new content. */
  lastProgress: boolean;
  /** The latest measured loop changed the content (maybe back to a state seen before). */
  lastChanged?: boolean;
  /** The control files open items asked for when the loop started, with a hash of each (loop-progress.ts). */
  controlAtStart?: Map<string, string>;
  /** Those of them the latest measured loop changed (base names: `AGENT.md`). */
  lastControlChanged?: string[];
  /** The one warning about an unmeasurable content was given. */
  warned?: boolean;
}

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
  /** The filesystem's "now" in ms (tests): else the mtime of a file the snapshot writes in stateDir. */
  clock?: () => number;
  /** From how many listed files git compares the stats (tests lower it); below, they are lstat'ed here. */
  gitStatFrom?: number;
  /** The walk of the project's folders: with it, git lists only the folders whose entries changed (changed-folders.ts). */
  folders?: FolderWalker;
}

export interface ContentSnapshotter {
  take(): Promise<ContentSnapshot>;
  /** Paths whose content differs between two snapshots (relative to the project). */
  changedPaths(from: ContentSnapshot, to: ContentSnapshot): Promise<string[]>;
}

interface CachedFile extends IndexedStat {
  /** `<kind> <sha1>`: what the content id is built from. */
  entry: string;
  /** git's whole-second comparison can vouch for it: it goes into the private index. */
  indexed: boolean;
}

/** Where the repository is, for the private index: the project's path in it and its hash's length. */
interface GitLayout {
  prefix: string;
  hashLength: number;
  /** The index and the repository's exclude file. */
  watched: string[];
}

/** Which files of a list are unchanged on disk; the stats of the others when they were taken. */
interface Checked {
  unchanged: Uint8Array;
  /** undefined: not stat'ed yet (git named them). */
  stats?: Map<number, Stats | undefined>;
}

// Snapshots whose file lists are kept for changedPaths (the loop compares neighbours).
const KEPT_SNAPSHOTS = 4;
// Files stat'ed between turns of the event loop while git lists the files.
const STAT_TURN = 2048;
// Below this many files, lstat-ing each here costs less than starting git once more (a fork of
// ralph) to compare their stats.
const GIT_STAT_FROM = 2048;
// Files listed since the private index was built that are stat'ed here before it is built again
// (plus one in 64 of the list).
const REBUILD_MISSING = 256;

export function createContentSnapshotter(options: ContentSnapshotOptions): ContentSnapshotter {
  const { projectDir } = options;
  const fs = options.fs ?? nodeFs;
  const isExcluded = exclusionTest(projectDir, options.excluded);
  // The stat cache, aligned with the last listing's paths.
  let listing: Listing | undefined;
  let cached: Array<CachedFile | undefined> = [];
  let previous: Entries | undefined;
  // The latest snapshots, each with what changed since the one before it (for changedPaths).
  const history: Array<{ id: string; changes: Map<string, [string | undefined, string | undefined]> }> = [];
  let last: string | undefined;
  const gitEnv = { ...(options.env ?? process.env), GIT_OPTIONAL_LOCKS: '0' };
  let layout: Promise<GitLayout | undefined> | undefined;
  let known: GitLayout | undefined;
  const gitStatFrom = options.gitStatFrom ?? GIT_STAT_FROM;
  // The private index, built for an earlier listing and patched since.
  let statIndex: StatIndex | undefined;

  // git's own last list, and the last list with the files of nested repositories added.
  let gitList: Buffer | undefined;
  let withNested: { git: Buffer; files: string; list: Buffer } | undefined;
  const nestedWalker = createNestedWalker(projectDir, fs);
  // The ignore files of the last list (watched with the index: a change to one lists the whole tree).
  let ignoreFiles: { of: Listing; files: string[] } | undefined;
  const lister =
    options.folders &&
    changedFolderLister({
      walker: options.folders,
      isExcluded,
      watched: () => {
        if (!known || !listing) return undefined;
        if (ignoreFiles?.of !== listing) ignoreFiles = { of: listing, files: listing.fulls.filter((full) => full.endsWith(`${sep}.gitignore`)) };
        return [...known.watched, ...ignoreFiles.files];
      },
      listGit: (args) => gitOutput(['-c', 'core.fsmonitor=false', 'ls-files', '-z', '--cached', '--others', '--exclude-standard', ...args]),
    });

  /** What a git command printed, as bytes; null when it failed. */
  async function gitOutput(args: string[]): Promise<Buffer | null> {
    const chunks: Buffer[] = [];
    const exit = await options.processRunner.start('git', args, { cwd: projectDir, env: gitEnv, input: '', onStdout: (chunk) => chunks.push(chunk) }).done;
    return exit.spawnError || exit.code !== 0 ? null : Buffer.concat(chunks);
  }

  /**
   * The file list: git's, then the files of the nested repositories git names (`vendor/lib/`),
   * which ralph lists itself, never through git. The same Buffer as last time when nothing in
   * it changed; null when git is missing.
   */
  async function listFiles(stamp: number): Promise<Buffer | null> {
    // The watched files are known once the repository's layout is (asked once, after the first snapshot).
    if (lister && layout) await layout;
    const own = lister ? await lister.list(gitList, () => listWithGit(gitList)) : await listWithGit(gitList);
    if (own === null) return null;
    gitList = own;
    const nested = nestedRepositories(own, withNested?.git === own ? withNested : undefined);
    if (nested.length === 0) return own;
    const files = nested.flatMap((dir) => nestedWalker.list(dir, stamp)).join('\0');
    if (withNested?.git === own && withNested.files === files) return withNested.list;
    withNested = { git: own, files, list: Buffer.concat([own, Buffer.from(`\0${files}`)]) };
    return withNested.list;
  }

  /** The nested repositories git listed (`dir/`), taken from the last list when git's is the same. */
  function nestedRepositories(own: Buffer, last: { list: Buffer } | undefined): string[] {
    if (last && listing?.raw === last.list) return listing.nested ?? [];
    return folderEntries(own).filter((p) => !isExcluded(p));
  }

  /** git's file list, or `previous` itself when git gave the same bytes again; null when git is missing. */
  async function listWithGit(previous: Buffer | undefined): Promise<Buffer | null> {
    // Only what differs from the last list is kept: the same prefix is taken from it.
    const chunks: Buffer[] = [];
    let length = 0;
    let same = previous !== undefined;
    const onStdout = (chunk: Buffer): void => {
      if (same && !chunk.equals(previous!.subarray(length, length + chunk.length))) {
        same = false;
        chunks.push(previous!.subarray(0, length));
      }
      if (!same) chunks.push(chunk);
      length += chunk.length;
    };
    // No fsmonitor, not even the user's own: it is a program, and listing needs none.
    const listing = options.processRunner.start('git', ['-c', 'core.fsmonitor=false', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: projectDir,
      // No optional locks: nothing here may refresh the user's index as a side effect.
      env: gitEnv,
      input: '',
      onStdout,
    });
    const exit = await listing.done;
    if (exit.spawnError) return null;
    if (exit.code !== 0) {
      const walked = Buffer.from(walkFolder(projectDir).join('\0'));
      return previous?.equals(walked) ? previous : walked;
    }
    if (same) return length === previous!.length ? previous! : previous!.subarray(0, length);
    return Buffer.concat(chunks);
  }

  async function findLayout(): Promise<GitLayout | undefined> {
    const args = ['rev-parse', '--show-prefix', '--show-object-format', '--git-path', 'index', '--git-path', 'info/exclude'];
    const found = await options.processRunner.run('git', args, { cwd: projectDir, env: gitEnv });
    if (found.spawnError || found.code !== 0) return undefined;
    const [prefix, format, index, exclude] = found.stdout.split('\n');
    const hashLength = format === 'sha1' ? 20 : format === 'sha256' ? 32 : undefined;
    if (prefix === undefined || hashLength === undefined || !index || !exclude) return undefined;
    return (known = { prefix, hashLength, watched: [resolve(projectDir, index), resolve(projectDir, exclude)] });
  }

  /** The listing's cached files git finds unchanged, against the private index; undefined when git cannot tell. */
  async function checkWithGit(of: Listing): Promise<Checked | undefined> {
    if (of.paths.length < gitStatFrom) return undefined;
    const where = await layout;
    if (!where) return undefined;
    let slots = statIndex && slotsFor(of, statIndex);
    // Files listed since the index was built are stat'ed here; once they are many, it is built again.
    if (!slots || slots.missing > REBUILD_MISSING + (of.paths.length >> 6)) {
      statIndex = buildStatIndex(of.paths, where.prefix, where.hashLength, (path) => inNested(of, path));
      slots = slotsFor(of, statIndex);
    }
    const { index, entryOf, pathOf } = slots;
    const file = resolve(options.stateDir, 'index');
    try {
      for (let i = 0; i < of.paths.length; i++) {
        const hit = cached[i];
        if (entryOf[i]! >= 0) setIndexEntry(index, entryOf[i]!, hit?.indexed ? hit : undefined);
      }
      writeStatIndex(file, index);
    } catch {
      return undefined; // the file was refused (a link planted there) or could not be written
    }
    const changed = await changedByGit(index, file, { processRunner: options.processRunner, cwd: projectDir, env: gitEnv }).catch(() => null);
    if (changed === null) return undefined;
    const unchanged = new Uint8Array(of.paths.length);
    for (let i = 0; i < of.paths.length; i++) if (cached[i]?.indexed && entryOf[i]! >= 0) unchanged[i] = 1;
    for (const entry of changed) if (pathOf[entry]! >= 0) unchanged[pathOf[entry]!] = 0;
    return { unchanged };
  }

  /** Which of the listing's cached files are unchanged on disk; the stats of the others. */
  async function statFiles(of: Listing): Promise<Checked> {
    const unchanged = new Uint8Array(of.fulls.length);
    const stats = new Map<number, Stats | undefined>();
    for (let i = 0; i < of.fulls.length; i++) {
      // In turns with the event loop, so git's output is read while it is still listing.
      if (i % STAT_TURN === STAT_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
      const st = fs.lstatSync(of.fulls[i]!, { throwIfNoEntry: false });
      const hit = cached[i];
      if (st && hit && sameStat(hit, st)) {
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
    const stamp = stampTime(options.stateDir, options.clock);
    const prior = listing;
    // While git lists, the last list's files are checked: mostly it is the same list. The list
    // is started first: it needs nothing, and the private index is written while git lists.
    const listed = listFiles(stamp).catch(() => null);
    const checked = prior ? checkWithGit(prior) : undefined;
    const seen = prior ? ((await checked) ?? (await statFiles(prior))) : undefined;
    const raw = await listed;
    if (raw === null) return { id: null };
    const prefix = projectDir.endsWith(sep) ? projectDir : projectDir + sep;
    // The list made again from the last one where git's bytes differ; where each path was in it.
    const { listing: current, align } =
      prior && raw === prior.raw
        ? { listing: prior, align: undefined }
        : prior
          ? relist(prior, raw, prefix, isExcluded)
          : { listing: makeListing(raw, prefix, isExcluded), align: undefined };
    if (align && prior?.slots) current.slots = alignSlots(prior, current, align);
    const nextCache: Array<CachedFile | undefined> = new Array(current.paths.length);
    const entries: Array<string | undefined> = new Array(current.paths.length);
    for (let i = 0; i < current.paths.length; i++) {
      const at = align ? oldPlace(align, i, current.paths[i]!) : prior ? i : undefined;
      if (at !== undefined && seen!.unchanged[at] === 1) {
        nextCache[i] = cached[at];
        entries[i] = cached[at]!.entry;
        continue;
      }
      // undefined: deleted since it was listed, or listed from the index only.
      const st = at !== undefined && seen!.stats ? seen!.stats.get(at) : fs.lstatSync(current.fulls[i]!, { throwIfNoEntry: false });
      if (st === undefined) continue;
      const hit = at !== undefined ? cached[at] : undefined;
      if (hit && sameStat(hit, st)) {
        // Stat'ed after this snapshot's stamp: a change from now on shows in a later second.
        nextCache[i] = hit.indexed || !indexable(st, stamp) ? hit : { ...hit, indexed: true };
        entries[i] = hit.entry;
        continue;
      }
      const entry = await hashEntry(fs, current.fulls[i]!, st);
      entries[i] = entry;
      if (entry !== undefined && st.mtimeMs < stamp && st.ctimeMs < stamp) {
        const { size, mtimeMs, ctimeMs, dev, ino, mode, uid, gid } = st;
        nextCache[i] = { size, mtimeMs, ctimeMs, dev, ino, mode, uid, gid, entry, indexed: indexable(st, stamp) };
      }
    }
    listing = current;
    cached = nextCache;
    // Asked once, for the next snapshot, when the list is long enough for git's comparison.
    if (current.paths.length >= gitStatFrom) layout ??= findLayout().catch(() => undefined);
    const placeOf = (i: number): number | undefined => (align ? oldPlace(align, i, current.paths[i]!) : i);
    const now = previous ? changedSince(previous, current, entries, placeOf, align?.gone ?? []) : undefined;
    const sum = now ? now.sum : entriesSum(current.paths, entries);
    const id = contentId(sum);
    const since = last !== undefined && now ? { id: last, changed: [...now.changes.keys()].sort() } : undefined;
    previous = { listing: current, entries, sum };
    history.push({ id, changes: now?.changes ?? new Map() });
    if (history.length > KEPT_SNAPSHOTS) history.shift();
    last = id;
    return { id, ...(since ? { since } : {}) };
  }

  return {
    take,
    async changedPaths(from, to) {
      if (from.id === null || to.id === null || from.id === to.id) return [];
      if (to.since?.id === from.id) return to.since.changed;
      return changedBetween(history, from.id, to.id);
    },
  };
}

function sameStat(hit: CachedFile, st: Stats): boolean {
  return hit.size === st.size && hit.mtimeMs === st.mtimeMs && hit.ctimeMs === st.ctimeMs && hit.ino === st.ino && hit.mode === st.mode;
}

// The filesystem's "now": the mtime of a file ralph just wrote in its own folder.
function stampTime(stateDir: string, clock: (() => number) | undefined): number {
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
