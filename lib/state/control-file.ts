// Reading a control file (PROMPT.md, fix_plan.md, AGENT.md, .ralphrc) safely. The agent can
// replace any of them, so before ralph reads one it must be a regular file of a sane size: a
// directory gives EISDIR, a FIFO blocks the read for ever, /dev/zero never ends, and a symlink
// out of the project would hand the agent another file's text. Each refusal is a RalphError
// naming the file and what to do; a state file ralph writes must not be a directory either,
// and every other file the agent can replace is read through readRegularFile.

import { closeSync, fstatSync, lstatSync, openSync, readFileSync, readlinkSync, readSync, realpathSync, statSync, constants, type Stats } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { RalphError } from '../errors.js';

/** Larger than any prompt or plan a person writes; the prompt goes to the agent on stdin. */
export const CONTROL_FILE_MAX_BYTES = 10 * 1024 * 1024;

export interface ControlFileOptions {
  /** Names are shown relative to it, and a symlink in it must not lead out of it. */
  projectDir: string;
  /** Allow a symlink out of projectDir (~/.ralphrc often links into a dotfiles repository). */
  allowSymlinkOut?: boolean;
  /** Refuse a file with nothing but whitespace in it (PROMPT.md). */
  requireContent?: boolean;
  maxBytes?: number;
}

/** Why `path` cannot be read as a control file, or undefined when it can (or is absent). */
export function controlFileProblem(path: string, options: ControlFileOptions): string | undefined {
  let link: Stats;
  try {
    link = lstatSync(path);
  } catch {
    return undefined;
  }
  if (link.isSymbolicLink() && !options.allowSymlinkOut) {
    const outside = symlinkTargetOutside(path, options.projectDir);
    if (outside) return `is a symlink to ${outside}, outside the project`;
  }
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch {
    return 'is a symlink to nothing';
  }
  return kindProblem(stats) ?? sizeProblem(stats.size, options.maxBytes ?? CONTROL_FILE_MAX_BYTES);
}

/** Throws the RalphError for a control file ralph must not read; absent is fine. */
export function assertControlFile(path: string, options: ControlFileOptions): void {
  const problem = controlFileProblem(path, options);
  if (problem) throw controlFileError(path, options.projectDir, problem);
}

/** The file's text; undefined when it does not exist; a RalphError when it is not a file ralph may read. */
export function readControlFile(path: string, options: ControlFileOptions): string | undefined {
  assertControlFile(path, options);
  let fd: number;
  try {
    // O_NONBLOCK: if the file was swapped for a FIFO since the check, open must not hang.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let text: string;
  try {
    const stats = fstatSync(fd);
    // Judged on what was opened: the path may have been swapped for a link since the check.
    const outside = options.allowSymlinkOut ? undefined : openedOutsideProject(fd, path, options.projectDir);
    const why =
      (outside ? `is a symlink to ${outside}, outside the project` : undefined) ??
      kindProblem(stats) ??
      sizeProblem(stats.size, options.maxBytes ?? CONTROL_FILE_MAX_BYTES);
    if (why) throw controlFileError(path, options.projectDir, why);
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  if (text.includes('\u0000')) throw controlFileError(path, options.projectDir, 'contains NUL bytes (is it a binary file?)');
  if (options.requireContent && text.trim() === '') throw controlFileError(path, options.projectDir, 'is empty');
  return text;
}

/**
 * The text of a file ralph reads but the agent can replace (the plan, a state file): undefined
 * when absent, a RalphError naming it when it is not a regular file. The open does not block,
 * so a FIFO planted in its place is an error, not a hang that SIGTERM cannot end.
 */
export function readRegularFile(path: string): string | undefined {
  return withRegularFile(path, (fd) => readFileSync(fd, 'utf8'));
}

/**
 * The last `maxBytes` of a file like readRegularFile's (from the first whole line when the file is
 * longer): a log that grows with the run costs its readers the same at loop 1,000 as at loop 10.
 */
export function readRegularFileTail(path: string, maxBytes: number): string | undefined {
  return withRegularFile(path, (fd, size) => readTail(fd, size, maxBytes));
}

/**
 * As readRegularFile, for at most `maxBytes`: a bigger file is left unread (no text, its size
 * given), so a file the agent made huge costs its reader a stat, not its memory.
 */
export function readRegularFileWithin(path: string, maxBytes: number): { text?: string; size: number } | undefined {
  let size = 0;
  const text = withRegularFile(path, (fd, bytes) => {
    size = bytes;
    return bytes > maxBytes ? '' : readTail(fd, bytes, bytes);
  });
  if (text === undefined) return undefined;
  return size > maxBytes ? { size } : { text, size };
}

/** `read` of the open file when it is a regular one; undefined when absent. */
function withRegularFile(path: string, read: (fd: number, size: number) => string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    const why = kindProblem(stats);
    if (why) throw controlFileError(path, process.cwd(), why);
    return read(fd, stats.size);
  } finally {
    closeSync(fd);
  }
}

/** Bytes `from` to `to` of an open file (fewer when it shrank while it was read: what was there is kept). */
export function readRange(fd: number, from: number, to: number): Buffer {
  const buffer = Buffer.alloc(Math.max(0, to - from));
  let read = 0;
  while (read < buffer.length) {
    const n = readSync(fd, buffer, read, buffer.length - read, from + read);
    if (n === 0) break;
    read += n;
  }
  return buffer.subarray(0, read);
}

/** The last `bytes` bytes of an open file of `size` bytes as text, from a line start when the file is longer. */
export function readTail(fd: number, size: number, bytes: number): string {
  const start = Math.max(0, size - bytes);
  const text = readRange(fd, start, size).toString('utf8');
  if (start === 0) return text;
  const firstBreak = text.indexOf('\n');
  return firstBreak === -1 ? '' : text.slice(firstBreak + 1);
}

/** A RalphError for a state file ralph writes that is a directory (an atomic rename onto it fails). */
export function assertWritableStateFiles(files: string[], projectDir: string): void {
  for (const path of files) {
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch {
      continue;
    }
    if (!stats.isDirectory()) continue;
    throw new RalphError('bad_state_file', `${displayName(path, projectDir)} is a directory; ralph writes its state there`, {
      hint: `remove or rename that directory (rm -r ${displayName(path, projectDir)}), then run ralph again`,
    });
  }
}

function controlFileError(path: string, projectDir: string, problem: string): RalphError {
  const name = displayName(path, projectDir);
  return new RalphError('bad_control_file', `${name} ${problem}`, { hint: hintFor(name, problem) });
}

function hintFor(name: string, problem: string): string {
  if (problem === 'is empty') return `write the task for Claude in ${name}`;
  if (problem.startsWith('contains NUL')) return `${name} must be text: restore it from git (git checkout -- ${name}) or write it again`;
  if (problem.startsWith('is a symlink')) return `replace ${name} with a regular file inside the project`;
  return `replace ${name} with a regular text file (restore it with git checkout -- ${name}, or run ralph-enable --force)`;
}

function kindProblem(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return 'is a directory, not a file';
  if (stats.isFIFO()) return 'is a named pipe (FIFO), not a file';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'is a device, not a file';
  if (stats.isSocket()) return 'is a socket, not a file';
  return 'is not a regular file';
}

function sizeProblem(size: number, maxBytes: number): string | undefined {
  return size > maxBytes ? `is ${Math.ceil(size / 1024 / 1024)} MB, more than the ${Math.round(maxBytes / 1024 / 1024)} MB ralph reads` : undefined;
}

/** The symlink's real target when the link sits inside the project and its target does not. */
function symlinkTargetOutside(path: string, projectDir: string): string | undefined {
  const root = realOrSelf(projectDir);
  // A control file the user placed outside the project on purpose (--prompt /elsewhere) is theirs.
  if (!inside(realOrSelf(dirname(path)), root)) return undefined;
  let target: string;
  try {
    target = realpathSync(path);
  } catch {
    return undefined;
  }
  return inside(target, root) ? undefined : target;
}

/**
 * The real path of the file open at `fd`, when `path` names a place inside the project but what
 * was opened lies outside it (read from /proc/self/fd; undefined where /proc is missing).
 */
export function openedOutsideProject(fd: number, path: string, projectDir: string): string | undefined {
  if (!inside(resolve(projectDir, path), resolve(projectDir))) return undefined;
  let opened: string;
  try {
    opened = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
  return inside(opened, realOrSelf(projectDir)) ? undefined : opened;
}

/**
 * openedOutsideProject for a view that opens the same few files look after look: the project's
 * real path is worked out at the first file opened, whether a path names a place inside the
 * project once per path, so each file opened costs one readlink of /proc/self/fd.
 */
export function projectBoundary(projectDir: string): (fd: number, path: string) => string | undefined {
  const root = resolve(projectDir);
  const named = new Map<string, boolean>();
  let real: string | undefined;
  return (fd, path) => {
    let inProject = named.get(path);
    if (inProject === undefined) named.set(path, (inProject = inside(resolve(projectDir, path), root)));
    if (!inProject) return undefined;
    let opened: string;
    try {
      opened = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return undefined;
    }
    real ??= realOrSelf(projectDir);
    // Both are absolute and canonical (the kernel's name of the open file, a real path).
    return opened === real || opened.startsWith(real.endsWith('/') ? real : `${real}/`) ? undefined : opened;
  };
}

function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function displayName(path: string, projectDir: string): string {
  const full = resolve(projectDir, path);
  return inside(full, resolve(projectDir)) ? relative(resolve(projectDir), full) : path;
}
