// Writes that follow no link. The agent can write under `.ralph/`, so any file ralph appends to
// or rewrites there may have been replaced by a symlink (or a hard link, a FIFO, a device) to
// a file outside the project — ~/.bashrc, say. Each file is opened with O_NOFOLLOW and checked
// on its descriptor to be a regular file with one link, and its directory (up to `.ralph`) is
// checked not to be a link; anything else is refused with a RalphError naming it.

import { closeSync, constants, fchmodSync, fstatSync, ftruncateSync, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { basename, dirname, sep } from 'node:path';
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
  assertNoLinkedDirectory(dirname(path));
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw refusedWrite(path, 'is a symlink');
    if (code === 'ENXIO') throw refusedWrite(path, 'is a named pipe (FIFO)');
    throw error;
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
  mkdirSync(dir, { recursive: true });
  assertNoLinkedDirectory(dir);
}

/**
 * `dir` and its parents up to the nearest `.ralph` are directories, not links: a linked
 * `.ralph/logs` would send every log to wherever it points. With no `.ralph` above, only `dir`.
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

function ralphDirectoryChain(dir: string): string[] {
  const chain: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    chain.push(at);
    if (basename(at) === '.ralph') return chain;
    if (dirname(at) === at || chain.length > 8) return [dir];
  }
}

function refusedWrite(path: string, problem: string): RalphError {
  const name = ralphRelativeName(path);
  return new RalphError(REFUSED_WRITE, `${name} ${problem}; ralph writes nothing through it`, {
    hint: `remove ${name} (the agent may have planted it); ralph creates it again`,
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
