// The files a loop added right in the folders whose entries changed, found without git's index:
// while the index and the ignore files stand, what git lists in such a folder is what it listed
// before plus the new files its ignore rules let through, as long as nothing listed before is
// gone (a tracked file stays listed when it is deleted, an untracked one does not: only the
// index could tell them apart) and no folder is new (git lists every file below it). Each
// changed folder is read again and compared with the last list; anything this cannot answer
// for sure — an entry gone, a new folder or nested repository, a new ignore file, a name that
// differs from a listed one only in case, an entry git lists no file for (a socket), a path git
// would read as pathspec magic (`:(top)…`) — leaves it to git's list of the folders
// (changed-folders.ts). The new files' ignore rules are asked of `git check-ignore --no-index`,
// which reads the ignore files but not the index.

import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import type { FolderWalker } from '../platform/folder-walk.js';
import type { SnapshotFs } from './content-entries.js';

/** What the search for added files needs from the folder walk. */
export interface AddedFilesWalk {
  /** The folder was reached by the latest walk through folders of the project's device. */
  reachable(rel: string): boolean;
  /** The nested repositories of the latest walk (project-relative). */
  repositories: readonly string[];
  /** The entries in a folder now (folderReader); undefined when it cannot be read. */
  entries(rel: string): readonly Dirent[] | undefined;
}

/** The entries in a project's folder now: as the latest folder walk read them when it did, else read here. */
export function folderReader(projectDir: string, walker: FolderWalker, fs: SnapshotFs): (rel: string) => readonly Dirent[] | undefined {
  return (rel) => {
    const read = walker.entriesRead(rel);
    if (read) return read;
    try {
      return fs.readdirSync(join(projectDir, rel), { withFileTypes: true });
    } catch {
      return undefined;
    }
  };
}

export type Kind = 'file' | 'folder';

// Past this many files not listed before (an ignored folder's, whose files were never listed), git lists the folders instead.
const ASKED_AT_MOST = 256;

/**
 * The new files right in the `changed` folders (project-relative, '' not among them) that are
 * not in `previous` (git's last list, `\0`-terminated entries), sorted; undefined where git has
 * to list the folders again. Folders `isExcluded` leaves out are not looked at.
 */
export function addedFiles(
  previous: Buffer,
  changed: readonly string[],
  walk: AddedFilesWalk,
  isExcluded: (path: string) => boolean,
  listed: (dir: string) => ReadonlyMap<string, Kind> | undefined = (dir) => listedChildren(previous, dir),
): string[] | undefined {
  const changedSet = new Set(changed);
  const added: string[] = [];
  for (const dir of changed) {
    // git reads a path that begins with `:` as pathspec magic, even on check-ignore's stdin.
    if (dir === '' || dir.startsWith(':')) return undefined;
    if (isExcluded(`${dir}/`)) continue;
    if (!walk.reachable(dir) || walk.repositories.some((repo) => dir === repo || dir.startsWith(`${repo}/`))) return undefined;
    const entries = walk.entries(dir);
    const found = entries && addedIn(dir, changedSet, entries, listed(dir));
    if (!found) return undefined;
    added.push(...found);
    if (added.length > ASKED_AT_MOST) return undefined;
  }
  return added.sort();
}

/** The new files right in folder `dir`; undefined when git has to list it again. */
function addedIn(dir: string, changed: ReadonlySet<string>, entries: readonly Dirent[], listed: ReadonlyMap<string, Kind> | undefined): string[] | undefined {
  if (listed === undefined) return undefined;
  const out: string[] = [];
  let still = 0;
  for (const entry of entries) {
    const kind: Kind | undefined = entry.isFile() || entry.isSymbolicLink() ? 'file' : entry.isDirectory() ? 'folder' : undefined;
    const was = listed.get(entry.name);
    // A name that is no UTF-8 is left to git, which lists its bytes.
    if (kind === undefined || entry.name === '.git' || entry.name.includes('\uFFFD') || (was !== undefined && was !== kind)) return undefined;
    const path = `${dir}/${entry.name}`;
    if (was !== undefined) still++;
    // A folder that held no listed file (ignored, or empty) and did not change still holds none.
    else if (kind === 'folder') {
      if (changed.has(path)) return undefined;
    } else {
      if (entry.name === '.gitignore' || sameButCase(entry.name, listed.keys())) return undefined;
      out.push(path);
    }
  }
  return still === listed.size ? out : undefined;
}

/** Whether one of `names` is `name` but for the case of its letters. */
function sameButCase(name: string, names: Iterable<string>): boolean {
  const lower = name.toLowerCase();
  for (const other of names) if (other.toLowerCase() === lower) return true;
  return false;
}

/**
 * The names right in `dir` that `list` holds an entry at or below, each a file (`dir/name`) or a
 * folder (`dir/name/…`); undefined where the list holds `dir` itself as a folder git lists whole
 * (`dir/`: a nested repository) or a name that is both.
 */
export function listedChildren(list: Buffer, dir: string): Map<string, Kind> | undefined {
  const out = new Map<string, Kind>();
  const prefix = Buffer.from(`${dir}/`);
  const needle = Buffer.from(`\0${dir}/`);
  const starts: number[] = [];
  if (list.length >= prefix.length && list.compare(prefix, 0, prefix.length, 0, prefix.length) === 0) starts.push(0);
  for (let at = list.indexOf(needle); at !== -1; at = list.indexOf(needle, at + 1)) starts.push(at + 1);
  for (const start of starts) {
    const from = start + prefix.length;
    let end = list.indexOf(0, from);
    if (end === -1) end = list.length;
    const slash = list.indexOf(0x2f, from);
    const isFolder = slash !== -1 && slash < end;
    if (end === from) return undefined;
    const name = list.toString('utf8', from, isFolder ? slash : end);
    const kind: Kind = isFolder ? 'folder' : 'file';
    if (out.get(name) !== undefined && out.get(name) !== kind) return undefined;
    out.set(name, kind);
  }
  return out;
}

// Folders whose listed names are kept at most (past it, they are read from the list again).
const KEPT_FOLDERS = 256;

/**
 * The listed names of folders (listedChildren) of one list, kept while the list grows only by
 * the files added to it (`grown`): a folder that changes loop after loop is read from the list
 * once. Any other list reads them again.
 */
export class ListedFolders {
  private list: Buffer | undefined;
  private readonly byDir = new Map<string, Map<string, Kind> | undefined>();

  constructor(private readonly read: (list: Buffer, dir: string) => Map<string, Kind> | undefined = listedChildren) {}

  /** The names right in `dir` that `list` holds (listedChildren). */
  of(list: Buffer, dir: string): ReadonlyMap<string, Kind> | undefined {
    if (list !== this.list || this.byDir.size >= KEPT_FOLDERS) this.reset(list);
    if (!this.byDir.has(dir)) this.byDir.set(dir, this.read(list, dir));
    return this.byDir.get(dir);
  }

  /** `list` is `from` with the files `paths` added at its end. */
  grown(from: Buffer, list: Buffer, paths: readonly string[]): void {
    if (from !== this.list) return this.reset(undefined);
    for (const path of paths) {
      const slash = path.lastIndexOf('/');
      this.byDir.get(path.slice(0, slash))?.set(path.slice(slash + 1), 'file');
    }
    this.list = list;
  }

  private reset(list: Buffer | undefined): void {
    this.list = list;
    this.byDir.clear();
  }
}
