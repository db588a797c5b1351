// git's file list of a loop later, from the last one and git's list of the folders whose entries
// changed: a file is added, removed or renamed only where a folder's own stat changes
// (lib/platform/folder-walk.ts finds those), so the rest of the list stands while the index and
// the ignore rules stand too. What git lists for a changed folder (with every folder below it)
// takes the place of what the last list held there.

import { lstatSync, type Dirent } from 'node:fs';
import type { FolderWalk, FolderWalker } from '../platform/folder-walk.js';
import { addedFiles, ListedFolders } from './added-files.js';

// More changed folders than this are listed by one walk of the whole tree instead.
export const MAX_CHANGED_FOLDERS = 64;
// Files found ignored that are remembered (past it, they are asked about again).
const KNOWN_IGNORED_AT_MOST = 4096;

/**
 * The changed folders to ask git about, none below another; undefined when the project's own
 * folder changed (the whole tree is listed). Folders the snapshot leaves out are not asked about.
 */
export function foldersToList(changed: readonly string[], isExcluded: (path: string) => boolean): string[] | undefined {
  const relevant = changed.filter((dir) => dir === '' || !isExcluded(`${dir}/`));
  if (relevant.includes('')) return undefined;
  const sorted = [...new Set(relevant)].sort();
  const out: string[] = [];
  for (const dir of sorted) if (!out.some((top) => dir.startsWith(`${top}/`))) out.push(dir);
  return out;
}

/** git's pathspec for everything below a folder of the project, matched as written (no glob). */
export function folderPathspec(dir: string): string {
  return `:(literal)${dir}/`;
}

/**
 * `previous` (`\0`-terminated entries) without the entries below `dirs`, with `listed` (git's
 * list of those folders) where the first of them was (at the end when there was none).
 */
export function spliceListing(previous: Buffer, dirs: readonly string[], listed: Buffer): Buffer {
  const ranges: Array<[number, number]> = [];
  for (const dir of dirs) {
    const needle = Buffer.from(`\0${dir}/`);
    const starts: number[] = [];
    if (previous.length >= needle.length - 1 && previous.compare(needle, 1, needle.length, 0, needle.length - 1) === 0) starts.push(0);
    for (let at = previous.indexOf(needle); at !== -1; at = previous.indexOf(needle, at + 1)) starts.push(at + 1);
    for (const start of starts) {
      const end = previous.indexOf(0, start);
      ranges.push([start, end === -1 ? previous.length : end + 1]);
    }
  }
  if (ranges.length === 0) return Buffer.concat([previous, listed]);
  ranges.sort((a, b) => a[0] - b[0]);
  const parts: Buffer[] = [previous.subarray(0, ranges[0]![0]), listed];
  for (let k = 0; k < ranges.length; k++) {
    const next = k + 1 < ranges.length ? ranges[k + 1]![0] : previous.length;
    if (ranges[k]![1] < next) parts.push(previous.subarray(ranges[k]![1], next));
  }
  return Buffer.concat(parts);
}

/** The stat of each file that says which files git lists (the index, the ignore files), as one text. */
export function listingSignature(files: readonly string[]): string {
  return files
    .map((file) => {
      try {
        const st = lstatSync(file);
        return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
      } catch {
        return '-';
      }
    })
    .join('|');
}

export interface ChangedFolderListing {
  walker: FolderWalker;
  isExcluded: (path: string) => boolean;
  /** The files whose change makes git list other files (the index, the ignore files); undefined: not known yet. */
  watched: () => string[] | undefined;
  /** git's list of what the arguments name (`ls-files` options and pathspecs); null when git failed. */
  listGit: (args: string[]) => Promise<Buffer | null>;
  /** The paths git's ignore rules leave out, asked without the index; null when git failed. */
  ignoredOf: (paths: string[]) => Promise<Set<string> | null>;
  /** The entries in a folder now (added-files.ts folderReader). */
  readFolder: (rel: string) => readonly Dirent[] | undefined;
}

export interface ChangedFolderLister {
  /** The list of a loop later, from `previous` (undefined: git lists the whole tree; `full` does). */
  list(previous: Buffer | undefined, full: () => Promise<Buffer | null>): Promise<Buffer | null>;
}

/** Lists what changed since the last list, where the walk and the watched files say the rest stands. */
export function changedFolderLister(options: ChangedFolderListing): ChangedFolderLister {
  // The walk and the watched files' stats the last list was made after, and the files git's
  // ignore rules were found to leave out since those stats (while they stand, so do the rules).
  let basis: { generation: number; signature: string; ignored: Set<string> } | undefined;
  const folders = new ListedFolders();
  return {
    async list(previous, full) {
      // The walk the disarm step just made, when it stands; else a walk of its own.
      const walk = options.walker.latestOrWalk();
      const files = options.watched();
      const signature = files ? listingSignature(files) : undefined;
      let own: Buffer | null | undefined;
      const last = basis && signature !== undefined && signature === basis.signature ? basis : undefined;
      const ignored = last && last.ignored.size < KNOWN_IGNORED_AT_MOST ? last.ignored : new Set<string>();
      if (previous && last) {
        const changed = options.walker.changedSince(last.generation);
        const dirs = changed && foldersToList(changed, options.isExcluded);
        if (dirs?.length === 0) own = previous;
        else if (dirs && dirs.length <= MAX_CHANGED_FOLDERS)
          own = (await withAddedFiles(options, previous, changed!, { walk, known: ignored, folders })) ?? (await listFolders(options, previous, dirs));
      }
      if (own === undefined) own = await full();
      basis = own !== null && signature !== undefined ? { generation: walk.generation, signature, ignored } : undefined;
      return own;
    },
  };
}

/** `previous` with git's list of the folders `dirs` where it held them; undefined when git failed. */
async function listFolders(options: ChangedFolderListing, previous: Buffer, dirs: readonly string[]): Promise<Buffer | undefined> {
  const listed = await options.listGit(['--', ...dirs.map(folderPathspec)]);
  const spliced = listed && spliceListing(previous, dirs, listed);
  if (!spliced) return undefined;
  return spliced.equals(previous) ? previous : spliced;
}

/**
 * `previous` with the files added right in the `changed` folders that git does not ignore (those
 * in `known` it was found to ignore before, the others asked, `known` told; the folders' listed
 * names from `folders`); undefined when git has to list the folders.
 */
async function withAddedFiles(
  options: ChangedFolderListing,
  previous: Buffer,
  changed: readonly string[],
  { walk, known, folders }: { walk: FolderWalk; known: Set<string>; folders: ListedFolders },
): Promise<Buffer | undefined> {
  const reach = { reachable: (dir: string) => options.walker.reachable(dir), repositories: walk.repositories, entries: options.readFolder };
  const added = addedFiles(previous, changed, reach, options.isExcluded, (dir) => folders.of(previous, dir))?.filter((path) => !known.has(path));
  if (added === undefined) return undefined;
  const ignored = added.length > 0 ? await options.ignoredOf(added) : new Set<string>();
  if (ignored === null) return undefined;
  for (const path of ignored) known.add(path);
  const listed = added.filter((path) => !ignored.has(path));
  if (listed.length === 0) return previous;
  const grown = Buffer.concat([previous, Buffer.from(listed.map((path) => `${path}\0`).join(''))]);
  folders.grown(previous, grown, listed);
  return grown;
}
