// The project's content as one id: a hash over the working tree as it is on disk — tracked and
// untracked non-ignored files, each by path, kind (file, executable, symlink) and content hash —
// without ralph's control and state files (`.ralph/**`, `.ralphrc`, the prompt wherever it is
// configured). The file list comes from `git ls-files --cached --others --exclude-standard` (a
// folder that is no repository is walked instead); the bytes are read and hashed here, never
// through git, so no filter runs and no object is written into the user's `.git`. A stat cache
// (size, mtime, ctime, inode, mode) keeps unchanged files from being read again. In a loop after
// the first, the walk that cleared setuid bits after the call names what changed since, where it
// ran and can vouch (walk-check.ts); else git names the files whose stat changed: `git diff-files`
// against a private index of the cached stat data in ralph's own folder (stat-index.ts), run while
// git lists the files; only those are lstat'ed here. Where that cannot run (no repository, the
// first snapshot, git failed), every file of the last list is lstat'ed while git lists. git's
// list is compared with the last one as its bytes come; where it differs, only the part between
// the head and tail the two lists share is decoded (listing-delta.ts); the entries and the stat
// cache of the rest are carried over whole and only the files that may have changed are looked
// at (next-entries.ts), and the id, a sum of one hash per file, is updated by those
// (content-entries.ts). A `touch` gives the same id; so does a commit, which changes HEAD but
// not the content. Progress is judged from these ids (lib/analysis/progress-evidence.ts).

import { resolve, sep } from 'node:path';
import { exclusionTest } from './snapshot-exclusions.js';
import type { ProcessRunner } from '../platform/process.js';
import { buildStatIndex, changedByGit, syncStatIndex, writeStatIndex, type StatIndex } from './stat-index.js';
import { keptFolders, unchangedAfterWalk, WalkRequests } from './walk-check.js';
import { stampTime, type CachedFile } from './stat-cache.js';
import { carriedBytes, nextEntries, statListing, type Checked } from './next-entries.js';
import type { ContentMemoryState } from './progress-evidence.js';
import {
  changedBetween,
  changedSince,
  contentId,
  entriesBefore,
  entriesSum,
  inNested,
  nodeFs,
  type Entries,
  type EntriesBefore,
  type Listing,
  type SnapshotFs,
} from './content-entries.js';
import { alignSlots, foldersListed, ignoreFileMoved, ignoreFiles, makeListing, oldPlace, relist, slotsFor, type Alignment } from './listing-delta.js';
import { changedFolderLister } from './changed-folders.js';
import type { FolderWalker } from '../platform/folder-walk.js';
import { createNestedWalker } from './nested-walk.js';
import { runGitCommand, startGitCommand } from '../platform/git-operations.js';
import { ignoredOf, listWithGit } from './git-list.js';
import { folderReader } from './added-files.js';
import type { ChangedEntries, TreeChanges } from '../platform/tree-changes.js';

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
  /** The walk after each agent call (the setuid clean-up) naming what changed: with `folders`, it stands in for git's stat comparison. */
  changes?: TreeChanges;
  /** How long before its stamp a snapshot asks the walk for changes from (tests: a clock set ahead). */
  walkMarginMs?: number;
}

export interface ContentSnapshotter {
  take(): Promise<ContentSnapshot>;
  /** Paths whose content differs between two snapshots (relative to the project). */
  changedPaths(from: ContentSnapshot, to: ContentSnapshot): Promise<string[]>;
}

/** Where the repository is, for the private index: the project's path in it and its hash's length. */
interface GitLayout {
  prefix: string;
  hashLength: number;
  /** The index and the repository's exclude file. */
  watched: string[];
}

// Snapshots whose file lists are kept for changedPaths (the loop compares neighbours).
const KEPT_SNAPSHOTS = 4;
// Below this many files, lstat-ing each here costs less than starting git once more (a fork of
// ralph) to compare their stats.
const GIT_STAT_FROM = 2048;
// Files listed since the private index was built that are stat'ed here before it is built again
// (plus one in 64 of the list).
const REBUILD_MISSING = 256;
// Entries the walk after a call may name beyond the listed files' number before git compares the stats instead.
const NAMED_AT_MOST = 10_000;

export function createContentSnapshotter(options: ContentSnapshotOptions): ContentSnapshotter {
  return new TreeSnapshotter(options);
}

/** One run's snapshots of one project: the last list, its stat cache and the ids taken. */
class TreeSnapshotter implements ContentSnapshotter {
  private readonly projectDir: string;
  private readonly fs: SnapshotFs;
  private readonly isExcluded: (path: string) => boolean;
  private readonly gitEnv: NodeJS.ProcessEnv;
  private readonly gitStatFrom: number;
  // The stat cache, aligned with the last listing's paths.
  private listing: Listing | undefined;
  private cached: Array<CachedFile | undefined> = [];
  private previous: Entries | undefined;
  // The latest snapshots, each with what changed since the one before it (for changedPaths).
  private readonly history: Array<{ id: string; changes: Map<string, [string | undefined, string | undefined]> }> = [];
  private last: string | undefined;
  private layout: Promise<GitLayout | undefined> | undefined;
  private known: GitLayout | undefined;
  // Snapshots taken (counted while a changed-folder listing may use the layout).
  private taken = 0;
  // The private index, built for an earlier listing and patched since.
  private statIndex: StatIndex | undefined;
  // The index holds the cached stat data of `listing`'s files but those at `positions` (changed
  // since it was synced); `vouched`: the files it vouches for.
  private sync: { index: StatIndex; listing: Listing; vouched: Uint8Array; positions: number[] } | undefined;
  // git's own last list, and the last list with the files of nested repositories added.
  private gitList: Buffer | undefined;
  private withNested: { git: Buffer; files: string; list: Buffer } | undefined;
  private readonly nestedWalker: ReturnType<typeof createNestedWalker>;
  // The ignore files of the last list (watched with the index: a change to one lists the whole tree).
  private ignoreFiles: { of: Listing; files: string[] } | undefined;
  private readonly lister: ReturnType<typeof changedFolderLister> | undefined;
  private readonly walks: WalkRequests;
  // The entries in a folder now, read once a loop (with the folder walk).
  private readonly readFolder: ReturnType<typeof folderReader> | undefined;

  constructor(private readonly options: ContentSnapshotOptions) {
    this.projectDir = options.projectDir;
    this.fs = options.fs ?? nodeFs;
    this.isExcluded = exclusionTest(options.projectDir, options.excluded);
    this.gitEnv = { ...(options.env ?? process.env), GIT_OPTIONAL_LOCKS: '0' };
    this.gitStatFrom = options.gitStatFrom ?? GIT_STAT_FROM;
    this.nestedWalker = createNestedWalker(options.projectDir, this.fs);
    this.walks = new WalkRequests(options.changes, options.folders, options.walkMarginMs);
    this.readFolder = options.folders && folderReader(options.projectDir, options.folders, this.fs);
    this.lister =
      options.folders &&
      changedFolderLister({
        walker: options.folders,
        isExcluded: this.isExcluded,
        watched: () => this.watchedFiles(),
        listGit: (args) => this.gitOutput(['-c', 'core.fsmonitor=false', 'ls-files', '-z', '--cached', '--others', '--exclude-standard', ...args]),
        ignoredOf: (paths) => ignoredOf({ processRunner: options.processRunner, cwd: this.projectDir, env: this.gitEnv }, paths),
        readFolder: this.readFolder!,
      });
  }

  /** The files whose change means the whole tree is listed again: the index, the exclude file, each `.gitignore`. */
  private watchedFiles(): string[] | undefined {
    if (!this.known || !this.listing) return undefined;
    if (this.ignoreFiles?.of !== this.listing) this.ignoreFiles = { of: this.listing, files: ignoreFiles(this.listing, this.isExcluded) };
    return [...this.known.watched, ...this.ignoreFiles.files];
  }

  /** What a git command printed, as bytes; null when it failed. */
  private async gitOutput(args: string[]): Promise<Buffer | null> {
    const chunks: Buffer[] = [];
    const exit = await startGitCommand(this.options.processRunner, args, {
      cwd: this.projectDir,
      env: this.gitEnv,
      input: '',
      onStdout: (chunk) => chunks.push(chunk),
    }).done;
    return exit.spawnError || exit.code !== 0 ? null : Buffer.concat(chunks);
  }

  /**
   * The file list: git's, then the files of the nested repositories git names (`vendor/lib/`),
   * which ralph lists itself, never through git. The same Buffer as last time when nothing in
   * it changed; null when git is missing.
   */
  private async listFiles(stamp: number): Promise<Buffer | null> {
    // The watched files are known once the repository's layout is (asked once, after the first snapshot).
    if (this.lister && this.layout) await this.layout;
    const own = this.lister
      ? await this.lister.list(this.gitList, () =>
          listWithGit({ processRunner: this.options.processRunner, cwd: this.projectDir, env: this.gitEnv }, this.gitList),
        )
      : await listWithGit({ processRunner: this.options.processRunner, cwd: this.projectDir, env: this.gitEnv }, this.gitList);
    if (own === null) return null;
    this.gitList = own;
    const withNested = this.withNested;
    const nested = this.nestedRepositories(own, withNested?.git === own ? withNested : undefined);
    if (nested.length === 0) return own;
    const files = nested.flatMap((dir) => this.nestedWalker.list(dir, stamp)).join('\0');
    if (withNested?.git === own && withNested.files === files) return withNested.list;
    this.withNested = { git: own, files, list: Buffer.concat([own, Buffer.from(`\0${files}`)]) };
    return this.withNested.list;
  }

  /** The nested repositories git listed (`dir/`), taken from the last list when git's is the same. */
  private nestedRepositories(own: Buffer, last: { list: Buffer } | undefined): string[] {
    if (last && this.listing?.raw === last.list) return this.listing.nested ?? [];
    return foldersListed(this.listing, own).filter((p) => !this.isExcluded(p));
  }

  private async findLayout(): Promise<GitLayout | undefined> {
    const args = ['rev-parse', '--show-prefix', '--show-object-format', '--git-path', 'index', '--git-path', 'info/exclude'];
    const found = await runGitCommand(this.options.processRunner, args, { cwd: this.projectDir, env: this.gitEnv });
    if (found.spawnError || found.code !== 0) return undefined;
    const [prefix, format, index, exclude] = found.stdout.split('\n');
    const hashLength = format === 'sha1' ? 20 : format === 'sha256' ? 32 : undefined;
    if (prefix === undefined || hashLength === undefined || !index || !exclude) return undefined;
    return (this.known = { prefix, hashLength, watched: [resolve(this.projectDir, index), resolve(this.projectDir, exclude)] });
  }

  /** The private index brought to the listing's cached stats, and which of its files it vouches for. */
  private syncIndex(of: Listing, where: GitLayout): { index: StatIndex; vouched: Uint8Array; pathOf: Int32Array } {
    let slots = this.statIndex && slotsFor(of, this.statIndex);
    // Files listed since the index was built are stat'ed here; once they are many, it is built again.
    if (!slots || slots.missing > REBUILD_MISSING + (of.paths.length >> 6)) {
      this.statIndex = buildStatIndex(of.paths, where.prefix, where.hashLength, (path) => inNested(of, path));
      slots = slotsFor(of, this.statIndex, true);
    }
    const { index, entryOf, pathOf } = slots;
    const since = this.sync?.index === index && this.sync.listing === of ? this.sync : undefined;
    const vouched = syncStatIndex(index, entryOf, this.cached, since);
    this.sync = { index, listing: of, vouched, positions: [] };
    return { index, vouched, pathOf };
  }

  /** The listing's cached files git finds unchanged, against the private index; undefined when git cannot tell. */
  private async checkWithGit(of: Listing): Promise<Checked | undefined> {
    if (of.paths.length < this.gitStatFrom) return undefined;
    const where = await this.layout;
    if (!where) return undefined;
    const { index, vouched, pathOf } = this.syncIndex(of, where);
    const file = resolve(this.options.stateDir, 'index');
    try {
      writeStatIndex(file, index);
    } catch {
      return undefined; // the file was refused (a link planted there) or could not be written
    }
    const changed = await changedByGit(index, file, { processRunner: this.options.processRunner, cwd: this.projectDir, env: this.gitEnv }).catch(() => null);
    if (changed === null) return undefined;
    const unchanged = vouched.slice();
    for (const entry of changed) if (pathOf[entry]! >= 0) unchanged[pathOf[entry]!] = 0;
    return { unchanged };
  }

  /** The listing's cached files the walk after the call vouches for (walk-check.ts); undefined when it cannot tell. */
  private async checkWithWalk(of: Listing, walk: ChangedEntries, walkedAt: number): Promise<Checked | undefined> {
    const walker = this.options.folders;
    const folders = walker?.changedSince(walkedAt);
    // Far more entries changed than files listed (a dependency installed): git compares faster.
    if (!walker || !folders || of.paths.length < this.gitStatFrom || walk.entries.length > of.paths.length + NAMED_AT_MOST) return undefined;
    const where = await this.layout;
    if (!where || walk.entries.includes('')) return undefined;
    const kept = keptFolders(walker, walkedAt, this.readFolder!);
    const unchanged = unchangedAfterWalk(this.syncIndex(of, where), walk.entries, folders, where.prefix, (entry) => walker.reachable(entry), kept);
    return unchanged && { unchanged };
  }

  async take(): Promise<ContentSnapshot> {
    // A file changed in the same clock tick as this snapshot may change again unseen by stat:
    // only entries older than the stamp are trusted next time (git's "racily clean" rule).
    const stamp = stampTime(this.options.stateDir, this.options.clock);
    // The changed-folder listing watches the files the repository's layout names, on a tree of
    // any size: asked at the fourth snapshot, so a run of a loop or two starts no git call for it.
    if (this.lister && ++this.taken >= 4) this.layout ??= this.findLayout().catch(() => undefined);
    const prior = this.listing;
    const walked = prior ? this.walks.take(stamp) : undefined;
    // While git lists, the last list's files are checked: mostly it is the same list. The list
    // is started first: it needs nothing, and the private index is written while git lists.
    const listed = this.listFiles(stamp).catch(() => null);
    const checked = prior && !walked ? this.checkWithGit(prior) : undefined;
    let seen = prior && !walked ? ((await checked) ?? (await statListing(this.fs, prior, this.cached))) : undefined;
    const raw = await listed;
    if (raw === null) return { id: null };
    // The folder walk the list was made with says which folders changed since the last one.
    if (prior && walked)
      seen =
        (await this.checkWithWalk(prior, walked.walk, walked.walkedAt)) ?? (await this.checkWithGit(prior)) ?? (await statListing(this.fs, prior, this.cached));
    const { current, align, cache, entries, visited, before } = await this.fromLast(prior, raw, seen, stamp).catch((error: unknown) => {
      // The last list and cache gave their arrays to the new ones: the next snapshot starts afresh.
      this.forget();
      throw error;
    });
    this.followSync(prior, current, align, visited);
    this.cached = cache;
    this.listing = current;
    // Asked once, for the next snapshot, when the list is long enough for git's comparison.
    if (current.paths.length >= this.gitStatFrom) this.layout ??= this.findLayout().catch(() => undefined);
    this.walks.ask(stamp, current.paths.length, walked?.walk);
    return this.record(current, entries, align, before && { before, visited });
  }

  /** The new list made from the last one (taking its arrays), and the entries and stat cache made from the last ones. */
  private async fromLast(prior: Listing | undefined, raw: Buffer, seen: Checked | undefined, stamp: number) {
    const { listing: current, align } = this.relist(prior, raw);
    // The last list's ignore files stand for the new one when none was listed or gone in the part that changed.
    const known = this.ignoreFiles;
    if (align && known && known.of === prior && !ignoreFileMoved(current, align)) this.ignoreFiles = { of: current, files: known.files };
    const last = prior && seen && this.previous?.listing === prior ? { listing: prior, cache: this.cached, entries: this.previous.entries, seen } : undefined;
    const folders = this.options.folders;
    // A file is vouched for by a later walk only where the folder walk reaches its folder.
    const reachable = folders && ((path: string) => folders.reachable(path.slice(0, Math.max(0, path.lastIndexOf('/')))));
    return { current, align, ...(await nextEntries(this.fs, current, align, last, stamp, reachable)) };
  }

  /** Nothing is known of the last list: the next snapshot looks at every file. */
  private forget(): void {
    [this.listing, this.cached, this.previous, this.sync] = [undefined, [], undefined, undefined];
  }

  /** The index's sync carried to the new list: what it held for the last one stands but where a file was looked at again. */
  private followSync(prior: Listing | undefined, current: Listing, align: Alignment | undefined, visited: number[]): void {
    const sync = this.sync;
    this.sync =
      sync && prior && sync.listing === prior && sync.positions.length === 0
        ? { index: sync.index, listing: current, vouched: carriedBytes(sync.vouched, align, current.paths.length), positions: visited }
        : undefined;
  }

  /** The list made again from the last one where git's bytes differ; where each path was in it. */
  private relist(prior: Listing | undefined, raw: Buffer): { listing: Listing; align: Alignment | undefined } {
    const prefix = this.projectDir.endsWith(sep) ? this.projectDir : this.projectDir + sep;
    if (!prior) return { listing: makeListing(raw, prefix, this.isExcluded), align: undefined };
    if (raw === prior.raw) return { listing: prior, align: undefined };
    const made = relist(prior, raw, prefix, this.isExcluded);
    if (made.align && prior.slots) made.listing.slots = alignSlots(prior, made.listing, made.align);
    return made;
  }

  /** The snapshot's id from the entries (updated by what changed when there was a last one), kept for changedPaths. */
  private record(
    current: Listing,
    entries: Array<string | undefined>,
    align: Alignment | undefined,
    looked: { before: EntriesBefore; visited: number[] } | undefined,
  ): ContentSnapshot {
    const placeOf = (i: number): number | undefined => (align ? oldPlace(align, i, current.paths[i]!) : i);
    const gone = align ? align.gone.map((at) => [align.removed[at - align.head]!, at] as const) : [];
    const previous = this.previous;
    const now = !previous
      ? undefined
      : looked
        ? changedSince(previous.sum, current, entries, looked.before, looked.visited)
        : changedSince(previous.sum, current, entries, entriesBefore(previous, placeOf, gone));
    const sum = now ? now.sum : entriesSum(current.paths, entries);
    const id = contentId(sum);
    const since = this.last !== undefined && now ? { id: this.last, changed: [...now.changes.keys()].sort() } : undefined;
    this.previous = { listing: current, entries, sum };
    this.history.push({ id, changes: now?.changes ?? new Map() });
    if (this.history.length > KEPT_SNAPSHOTS) this.history.shift();
    this.last = id;
    return { id, ...(since ? { since } : {}) };
  }

  async changedPaths(from: ContentSnapshot, to: ContentSnapshot): Promise<string[]> {
    if (from.id === null || to.id === null || from.id === to.id) return [];
    if (to.since?.id === from.id) return to.since.changed;
    return changedBetween(this.history, from.id, to.id);
  }
}
