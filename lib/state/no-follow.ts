// Writes that follow no link. The agent can write under `.ralph/`, so any file ralph appends to
// or rewrites there may have been replaced by a symlink (or a hard link, a FIFO, a device) to
// a file outside the project — ~/.bashrc, say — and may swap `.ralph` or a folder in it for a
// link, and back, while ralph writes. So the folder is opened first, from `.ralph` down, each
// step with O_NOFOLLOW through the folder above (openOwnDirectory), and the file is named
// through that descriptor: a check of the path followed by a use of it could be split by a
// swap. Each file is opened with O_NOFOLLOW and checked on its descriptor to be a regular file
// with one link; anything else is refused with a RalphError naming it.

import { closeSync, constants, fchmodSync, fstatSync, ftruncateSync, lstatSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { RalphError } from '../errors.js';

export const REFUSED_WRITE = 'refused_write';

/** True for the error a refused write throws. */
export function isRefusedWrite(error: unknown): error is RalphError {
  return error instanceof RalphError && error.code === REFUSED_WRITE;
}

/** Appends `data` to `path` (created with `mode` when absent), never through a link. */
export function appendFileNoFollow(path: string, data: string | Uint8Array, mode = 0o644): void {
  const fd = openNoFollow(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, mode);
  try {
    writeAll(fd, data);
  } finally {
    closeSync(fd);
  }
}

/** Replaces the contents of `path` in place and sets its mode to `mode`, never through a link. */
export function writeFileNoFollow(path: string, data: string | Uint8Array, mode = 0o644): void {
  // No O_TRUNC: it would cut the file before the checks below could refuse it.
  const fd = openNoFollow(path, constants.O_WRONLY | constants.O_CREAT, mode);
  try {
    fchmodSync(fd, mode);
    ftruncateSync(fd, 0);
    writeAll(fd, data);
  } finally {
    closeSync(fd);
  }
}

/**
 * A descriptor for `path` opened with `flags` plus O_NOFOLLOW (and O_NONBLOCK, so a FIFO cannot
 * hang the open), after checking its directories; a RalphError when anything is not ralph's own.
 */
export function openNoFollow(path: string, flags: number, mode = 0o644): number {
  return openInDirectory(ownDirectory(dirname(path), false), path, flags, mode);
}

/**
 * `path` named through its folder's descriptor (ownDirectory), for a call made right away: a
 * later ownDirectory may close that descriptor. A RalphError when the folder is a link.
 */
export function nameInOwnDirectory(path: string): string {
  return join(ownDirectory(dirname(path), false).at, basename(path));
}

/** openNoFollow of `path` (named for errors) in `dir`, a folder opened by ownDirectory. */
export function openInDirectory(dir: OwnDirectory, path: string, flags: number, mode = 0o644): number {
  let fd: number;
  try {
    fd = openSync(join(dir.at, basename(path)), flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw refusedWrite(path, 'is a symlink');
    if (code === 'ENXIO') throw refusedWrite(path, 'is a named pipe (FIFO)');
    throw namedByPath(error, dir, dirname(path));
  }
  const stats = fstatSync(fd);
  const problem = !stats.isFile() ? 'is not a regular file' : stats.nlink > 1 ? 'is a hard link to another file' : undefined;
  if (problem) {
    closeSync(fd);
    throw refusedWrite(path, problem);
  }
  return fd;
}

/** Creates `dir` (and its parents) when missing, and refuses it when it or a parent up to `.ralph` is a link. */
export function ensureOwnDirectory(dir: string): void {
  ownDirectory(dir, true);
}

/** A folder opened by ownDirectory; its `at` serves until the next ownDirectory call. */
export interface OwnDirectory {
  /** Its descriptor; undefined where /proc/self/fd is missing (then `at` is its path, checked). */
  readonly fd: number | undefined;
  /** `/proc/self/fd/<fd>`: a name for that very folder, whatever is renamed or linked on its path later. */
  readonly at: string;
}

const PROC_FD = '/proc/self/fd';
const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
let procFdPresent: boolean | undefined;

/** The folders opened lately, kept open (their descriptors close on exec: no child inherits one). */
const kept = new Map<string, OwnDirectory & { dev: number; ino: number }>();
const KEPT_FOLDERS = 32;

/**
 * `dir`, opened as openOwnDirectory does, and kept open for the next call while an lstat of its
 * path still finds that very folder (one renamed away, removed or replaced by a link is opened
 * again, and a link refused then). A write through a kept descriptor lands in the folder that
 * passed the checks, wherever it was moved since: only the agent moves it, to where it can write.
 */
export function ownDirectory(dir: string, create: boolean): OwnDirectory {
  const held = kept.get(dir);
  if (held !== undefined) {
    const now = lstatSync(dir, { throwIfNoEntry: false });
    if (now?.isDirectory() && now.dev === held.dev && now.ino === held.ino) return held;
    kept.delete(dir);
    closeOwnDirectory(held);
  }
  const opened = openOwnDirectory(dir, create);
  if (opened.fd === undefined) return opened;
  const { dev, ino } = fstatSync(opened.fd);
  kept.set(dir, { ...opened, dev, ino });
  if (kept.size > KEPT_FOLDERS) {
    const [oldest, folder] = kept.entries().next().value!;
    kept.delete(oldest);
    closeOwnDirectory(folder);
  }
  return opened;
}

/**
 * Opens `dir`: its path up to `.ralph` (ralphDirectoryChain; the whole path with no `.ralph` in it)
 * with O_NOFOLLOW, then each folder below through the one above, so no link is followed from
 * `.ralph` down whatever is swapped meanwhile. With `create`, missing folders are made. A
 * RalphError names a link or a file found on the way.
 */
function openOwnDirectory(dir: string, create: boolean): OwnDirectory {
  if (!(procFdPresent ??= isDirectory(PROC_FD))) {
    if (create) mkdirSync(dir, { recursive: true });
    assertNoLinkedDirectory(dir);
    return { fd: undefined, at: dir };
  }
  const [top, ...below] = ralphDirectoryChain(dir).reverse();
  let fd = openFolder(top!, top!, create && 'with parents');
  for (const folder of below) {
    try {
      const next = openFolder(`${PROC_FD}/${fd}/${basename(folder)}`, folder, create && 'alone');
      closeSync(fd);
      fd = next;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }
  return { fd, at: `${PROC_FD}/${fd}` };
}

function closeOwnDirectory(dir: OwnDirectory): void {
  if (dir.fd !== undefined) closeSync(dir.fd);
}

/** `error` (from a call on a name in `dir`) telling the folder's path `shown`, not its /proc name. */
export function namedByPath(error: unknown, dir: OwnDirectory, shown: string): unknown {
  return dir.fd === undefined ? error : renamedIn(error, `${dir.at}/`, `${shown}/`);
}

function renamedIn(error: unknown, from: string, to: string): unknown {
  const failure = error as NodeJS.ErrnoException & { dest?: string };
  if (typeof failure?.message !== 'string' || !failure.message.includes(from)) return error;
  failure.message = failure.message.split(from).join(to);
  if (typeof failure.path === 'string') failure.path = failure.path.split(from).join(to);
  if (typeof failure.dest === 'string') failure.dest = failure.dest.split(from).join(to);
  return failure;
}

/**
 * The folder at `path` (shown as `shown`), opened without following a link; made first when
 * missing and `create` says how. A folder under a descriptor is made alone: a parent removed
 * meanwhile makes Node's recursive mkdir retry for ever.
 */
function openFolder(path: string, shown: string, create: false | 'with parents' | 'alone'): number {
  try {
    return openSync(path, FOLDER_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && create) {
      makeFolder(path, create === 'with parents');
      return openFolder(path, shown, false);
    }
    if (code !== 'ENOTDIR' && code !== 'ELOOP') throw renamedIn(error, path, shown);
    const found = lstatSync(path, { throwIfNoEntry: false });
    if (found?.isSymbolicLink()) throw refusedWrite(shown, 'is a symlink');
    if (found && !found.isDirectory()) throw refusedWrite(shown, 'is not a folder');
    throw renamedIn(error, path, shown);
  }
}

function makeFolder(path: string, recursive: boolean): void {
  try {
    mkdirSync(path, { recursive });
  } catch (error) {
    // Made meanwhile by another writer: the open that follows judges it.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * `dir` and its parents up to `.ralph` (ralphDirectoryChain) are directories, not links: a
 * linked `.ralph/logs` would send every log to wherever it points. With no `.ralph` above, only `dir`.
 */
export function assertNoLinkedDirectory(dir: string): void {
  const chain = ralphDirectoryChain(dir);
  for (const each of chain) {
    let isLink: boolean;
    try {
      isLink = lstatSync(each).isSymbolicLink();
    } catch {
      continue; // created later, by ralph
    }
    if (isLink) throw refusedWrite(each, 'is a symlink');
  }
}

/**
 * `dir` and its parents up to the outermost `.ralph` within a few levels (a --parallel unit's
 * `.ralph` lies in a worktree under the project's: its worktree folder is the agent's to swap
 * too), nearest first; `[dir]` when there is none.
 */
function ralphDirectoryChain(dir: string): string[] {
  const chain: string[] = [];
  let outermost = 0;
  for (let at = dir; chain.length <= 8; at = dirname(at)) {
    chain.push(at);
    if (basename(at) === '.ralph') outermost = chain.length;
    if (dirname(at) === at) break;
  }
  return outermost === 0 ? [dir] : chain.slice(0, outermost);
}

function refusedWrite(path: string, problem: string): RalphError {
  const name = ralphRelativeName(path);
  return new RalphError(REFUSED_WRITE, `${name} ${problem}; ralph writes nothing through it`, {
    hint: `remove ${name} (the agent may have planted it); ralph creates it again`,
  });
}

/** The error for a folder found where ralph writes the state file `path` (a rename cannot replace it). */
export function folderInPlaceError(path: string): RalphError {
  const name = ralphRelativeName(path);
  return new RalphError('bad_state_file', `${name} is a directory; ralph writes its state there`, {
    hint: `remove or rename that directory (rm -r ${name}), then run ralph again`,
  });
}

/** `.ralph/logs/ralph.log` for a path inside a project's `.ralph`, else the path as given. */
export function ralphRelativeName(path: string): string {
  const at = path.lastIndexOf(`${sep}.ralph${sep}`);
  if (at >= 0) return path.slice(at + 1);
  return path.endsWith(`${sep}.ralph`) ? '.ralph' : path;
}

function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}
