// The folders of a project as they are on disk, walked again after every loop for one lstat per
// folder: a folder is read again only when its own stat changed (an entry added, removed or
// renamed in it changes it; a file written in place does not), or when it changed too recently
// for its stat to be trusted (the clock of a file's times is coarse). Links are never followed,
// and `.git` folders are not walked into. The walk gives the nested git repositories (every
// folder holding a `.git` entry, at any depth, in folders git ignores too: the disarm step,
// lib/containment/git-disarm.ts) and the folders whose entries changed since an earlier walk
// (the content snapshot asks git about those only, lib/analysis/content-snapshot.ts). The disarm
// step's walk, when it changed nothing, is the snapshot's too: the tree is walked once a loop.

import { lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';

interface Folder {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  dev: number;
  /** The first walk since which it has been this folder (its device and inode). */
  since: number;
  /** Its stat is old enough to be trusted: unchanged, it is not read again. */
  trusted: boolean;
  /** The walk that read it last. */
  readAt: number;
  /** Its subfolders (not `.git`), sorted. */
  folders: string[];
  /** It holds a `.git` entry of any kind. */
  repository: boolean;
}

export interface FolderWalk {
  /** The walk's number: folders read since walk N are `changedSince(N)`. */
  generation: number;
  /** The nested repositories (project-relative, without the project itself), parents first. */
  repositories: string[];
}

export interface FolderWalker {
  walk(): FolderWalk;
  /**
   * The latest walk still stands for the tree (it was made just now and nothing changed the
   * tree since): the next `latestOrWalk` takes it instead of walking again. Any walk ends it.
   */
  keepLatest(): void;
  /** The walk kept by `keepLatest` (once), else a new walk. */
  latestOrWalk(): FolderWalk;
  /**
   * The folders (project-relative, '' for the project) read again or gone since walk
   * `generation`, as of the latest walk; undefined when that walk is no longer known.
   */
  changedSince(generation: number): string[] | undefined;
  /** The latest walk; undefined before the first. */
  latest(): FolderWalk | undefined;
  /**
   * The latest walk reached folder `rel` (project-relative) through folders alone, never a link
   * and never another device: a walk of the project's device (`find -xdev`) sees what is in it.
   */
  reachable(rel: string): boolean;
  /**
   * The latest walk found at `rel` the folder (device and inode) every walk since walk
   * `generation` found there: its entries may have changed, but not the folder itself (swapped
   * for another, or mounted over).
   */
  sameFolderSince(rel: string, generation: number): boolean;
  /** The entries of folder `rel` as the latest walk read them; undefined when it did not read that folder (or read many others first). */
  entriesRead(rel: string): readonly Dirent[] | undefined;
}

// A folder whose stat changed less than this long before the walk is read again next time.
const TRUSTED_AFTER_MS = 2000;
// How many walks back changedSince can answer.
const KEPT_WALKS = 16;
// The entries of the first this many folders a walk reads are kept until the next (entriesRead).
const KEPT_READS = 64;

/** `skip`: project-relative folders that are not walked (ralph's own, holding what it moved aside). */
export function createFolderWalker(projectDir: string, skip: readonly string[] = [], now: () => number = Date.now): FolderWalker {
  let cache = new Map<string, Folder>();
  let generation = 0;
  // Folders gone, with the walk that found them gone.
  const gone = new Map<string, number>();
  const skipped = new Set(skip.map((dir) => dir.replace(/\/+$/, '')));
  let latest: FolderWalk | undefined;
  let kept = false;
  // The folders the latest walk read, with their entries.
  let read = new Map<string, Dirent[]>();
  // Folders of the latest walk reached through another device.
  let foreign = new Set<string>();
  const walker: FolderWalker = {
    keepLatest() {
      kept = latest !== undefined;
    },
    latestOrWalk() {
      if (!kept || !latest) return walker.walk();
      kept = false;
      return latest;
    },
    walk() {
      kept = false;
      generation++;
      const trusted = now() - TRUSTED_AFTER_MS;
      const next = new Map<string, Folder>();
      read = new Map();
      const repositories: string[] = [];
      const elsewhere = new Set<string>();
      let device: number | undefined;
      // Depth first with a stack of its own (a deep tree is no recursion), in sorted order.
      const stack = [''];
      while (stack.length > 0) {
        const rel = stack.pop()!;
        const st = lstatOrUndefined(rel === '' ? projectDir : join(projectDir, rel));
        if (!st?.isDirectory()) continue;
        device ??= st.dev;
        if (st.dev !== device || elsewhere.has(parentOf(rel))) elsewhere.add(rel);
        const before = cache.get(rel);
        const folder =
          sameFolder(before, st) ?? readFolder(join(projectDir, rel), st, generation, (entries) => read.size < KEPT_READS && read.set(rel, entries));
        if (before && folder !== before) folder.since = before.ino === st.ino && before.dev === st.dev ? before.since : generation;
        folder.trusted = st.mtimeMs < trusted && st.ctimeMs < trusted;
        next.set(rel, folder);
        if (folder.repository && rel !== '') repositories.push(rel);
        for (let i = folder.folders.length - 1; i >= 0; i--) {
          const sub = rel === '' ? folder.folders[i]! : `${rel}/${folder.folders[i]!}`;
          if (!skipped.has(sub)) stack.push(sub);
        }
      }
      for (const rel of cache.keys()) if (!next.has(rel)) gone.set(rel, generation);
      for (const [rel, at] of gone) if (next.has(rel) || at <= generation - KEPT_WALKS) gone.delete(rel);
      cache = next;
      foreign = elsewhere;
      return (latest = { generation, repositories });
    },
    changedSince(since) {
      if (since <= 0 || since > generation || since < generation - KEPT_WALKS) return undefined;
      const out: string[] = [];
      for (const [rel, folder] of cache) if (folder.readAt > since) out.push(rel);
      for (const [rel, at] of gone) if (at > since) out.push(rel);
      return out;
    },
    latest: () => latest,
    reachable: (rel) => cache.has(rel) && !foreign.has(rel),
    entriesRead: (rel) => read.get(rel),
    sameFolderSince: (rel, since) => (cache.get(rel)?.since ?? Infinity) <= since,
  };
  return walker;
}

function parentOf(rel: string): string {
  const slash = rel.lastIndexOf('/');
  return slash === -1 ? '' : rel.slice(0, slash);
}

function sameFolder(folder: Folder | undefined, st: Stats): Folder | undefined {
  return folder && folder.trusted && folder.mtimeMs === st.mtimeMs && folder.ctimeMs === st.ctimeMs && folder.ino === st.ino ? folder : undefined;
}

function readFolder(full: string, st: Stats, readAt: number, keep: (entries: Dirent[]) => void): Folder {
  const folders: string[] = [];
  let repository = false;
  try {
    const entries = readdirSync(full, { withFileTypes: true });
    keep(entries);
    for (const entry of entries) {
      if (entry.name === '.git') repository = true;
      else if (entry.isDirectory()) folders.push(entry.name);
    }
  } catch {
    // Gone or unreadable since its stat: nothing below it is found.
  }
  folders.sort();
  return { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, dev: st.dev, since: readAt, trusted: false, readAt, folders, repository };
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
