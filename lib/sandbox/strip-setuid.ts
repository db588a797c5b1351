// After each sandboxed call: no setuid or setgid file the agent made survives. The agent can
// chmod u+s a program it wrote in the project; the sandbox mounts it nosuid, but on the host any
// user who runs it would run as its owner (root, when the agent ran as root). Every process of the
// call should be gone by now (the pid namespace or the container died with it; on the host, the
// processes carrying the run's mark were ended), but a process that escaped could still swap a
// folder for a link while the files are cleared: so each file is opened without following a
// link, cleared only when its descriptor shows it still under the project, and changed through
// that descriptor. Links are not followed, nor folders on another device entered.
//
// A bit set on a file that was already there changes no folder, so every file of the tree is
// looked at, ignored folders and `.git` included. The host's `find` does that walk (one lstat per
// file, in C: a fraction of what an lstat per file costs from JavaScript, whose Stats objects
// alone cost more than `git status` on a large tree) and names only the files that carry a bit;
// each is checked again here before its bit is cleared. Where `find` cannot run or fails, the
// walk is made here. Paths are kept as bytes: a name that is no UTF-8 is still reached.
//
// The same walk serves the content snapshot that follows (lib/platform/tree-changes.ts): asked
// for, GNU find also names every entry whose ctime is past the snapshot's stamp, so the snapshot
// need not lstat every file again (find-walk.ts). A `find` without those tests fails, and the
// plain walk runs.

import { chmodSync, closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import type { Logger } from '../platform/deps.js';
import type { ProcessRunner } from '../platform/process.js';
import type { TreeChanges } from '../platform/tree-changes.js';
import { findChanged, runFind, SET_ID_FILE, splitNul, walksFor } from './find-walk.js';

const SET_ID_BITS = 0o6000;
// Linux's O_PATH (not in Node's constants): a descriptor that names a file without opening it for
// reading, so a file its owner cannot read (mode 4111) is reached as well; its mode is changed
// through /proc/self/fd (fchmod refuses such a descriptor).
const O_PATH = 0o10000000;

/** The filesystem calls of the walk (tests count them). */
export interface StripFs {
  lstatSync(path: Buffer): Stats;
  readdirSync(path: Buffer): Buffer[];
}

export interface StripOptions {
  /** Runs the host's `find`; without it, the walk is made here. */
  processRunner?: ProcessRunner;
  env?: NodeJS.ProcessEnv;
  fs?: StripFs;
  /** Where the content snapshot asks for the entries changed since its stamp (with `processRunner` only). */
  changes?: TreeChanges;
  /** The mount table's text (/proc/self/mountinfo unless given): where none is mounted below the project, its top entries are not stat'ed. */
  mountInfo?: () => string;
}

const nodeFs: StripFs = { lstatSync, readdirSync: (path) => readdirSync(path, { encoding: 'buffer' }) };

/** Clears the setuid and setgid bits of every regular file under `root`; returns the files changed. */
export async function stripSetuidFiles(root: string, options: StripOptions = {}): Promise<string[]> {
  const fs = reachingDeepPaths(options.fs ?? nodeFs);
  const rootBytes = Buffer.from(root.length > 1 ? root.replace(/\/+$/, '') : root);
  let top: Stats;
  try {
    top = fs.lstatSync(rootBytes);
  } catch {
    return [];
  }
  if (!top.isDirectory()) return [];
  const candidates =
    (options.processRunner && (await findSetIdFiles(rootBytes, { ...options, processRunner: options.processRunner }))) ??
    walkForSetIdFiles(rootBytes, top.dev, fs);
  const under = Buffer.concat([realpathSync(rootBytes, { encoding: 'buffer' }), Buffer.from('/')]);
  const stripped: string[] = [];
  for (const path of candidates) {
    let stats: Stats;
    try {
      stats = fs.lstatSync(path);
    } catch {
      continue;
    }
    if (stats.dev !== top.dev || !stats.isFile() || (stats.mode & SET_ID_BITS) === 0) continue;
    if (clearSetIdBits(path, under, top.dev)) stripped.push(path.toString());
  }
  return stripped;
}

/**
 * Clears the bits of the regular file `path` if it is still where it was named: reached without
 * following a link in its last name (O_PATH: read permission is not needed, and ralph run as an
 * ordinary user has no more than the agent left the file), and changed through the descriptor
 * only when /proc shows the file under `under` (a folder of its path made a link since would
 * lead elsewhere). A path too long for /proc to show is judged by what opening it a stretch at a
 * time reached.
 */
function clearSetIdBits(path: Buffer, under: Buffer, dev: number): boolean {
  let fd: number;
  try {
    fd = reach(path, (short) => openSync(short, O_PATH | constants.O_NOFOLLOW));
  } catch {
    return false;
  }
  try {
    const stats = fstatSync(fd);
    if (stats.dev !== dev || !stats.isFile() || (stats.mode & SET_ID_BITS) === 0) return false;
    if (!isUnder(fd, under)) return false;
    chmodSync(`/proc/self/fd/${fd}`, stats.mode & 0o777 & ~SET_ID_BITS);
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

function isUnder(fd: number, under: Buffer): boolean {
  try {
    const where = readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'buffer' });
    return where.length > under.length && where.subarray(0, under.length).equals(under);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENAMETOOLONG';
  }
}

// A path longer than this is reached through its folders, opened a stretch at a time: a system
// call takes no path over PATH_MAX (4096 bytes), and the agent can make folders deeper than that.
const LONGEST_PATH = 3072;

/** `fs`, whose calls reach a path of any length. */
function reachingDeepPaths(fs: StripFs): StripFs {
  return {
    lstatSync: (path) => reach(path, (short) => fs.lstatSync(short)),
    readdirSync: (path) => reach(path, (short) => fs.readdirSync(short)),
  };
}

/**
 * `use` called with `path`, or, when it is too long, with a shorter name of the same file: its
 * first folders opened (a stretch of at most LONGEST_PATH bytes) and the rest named under
 * /proc/self/fd. No process of the agent runs now, so no folder is swapped on the way.
 */
function reach<T>(path: Buffer, use: (short: Buffer) => T): T {
  if (path.length <= LONGEST_PATH) return use(path);
  // Folder names are at most 255 bytes: a `/` lies within the stretch, past the /proc prefix.
  const cut = path.lastIndexOf(0x2f, LONGEST_PATH);
  const fd = openSync(path.subarray(0, cut), constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    return reach(Buffer.concat([Buffer.from(`/proc/self/fd/${fd}`), path.subarray(cut)]), use);
  } finally {
    closeSync(fd);
  }
}

/**
 * The regular files under `root` with a setuid or setgid bit, as `find` names them; undefined
 * when it could not tell. Where the snapshot asks (`changes`), the same walk names the entries
 * changed since (and the set-id files, whose bits are about to change), posted to `changes`.
 */
async function findSetIdFiles(root: Buffer, options: StripOptions & { processRunner: ProcessRunner }): Promise<Buffer[] | undefined> {
  const since = options.changes?.wanted();
  if (since !== undefined) {
    const startedAt = options.changes!.now();
    // Named from the ms before: a ctime in the same ms is named too.
    const after = `@${(Math.floor(since - 1) / 1000).toFixed(3)}`;
    const found = await findChanged(root, after, { ...options, lstat: options.fs?.lstatSync }, walksFor(options.changes!.listed()));
    if (found) {
      options.changes!.post({ since, entries: found.entries, startedAt });
      return found.setId;
    }
  }
  // From `.`, the project itself: each entry is `./` and the path below it.
  const out = await runFind(root, ['.', '-xdev', ...SET_ID_FILE, '-print0'], options);
  return out && splitNul(out).flatMap((entry) => (entry.length > 2 ? [Buffer.concat([root, entry.subarray(1)])] : []));
}

/** The same walk made here: every entry lstat'ed, links not followed, other devices not entered. */
function walkForSetIdFiles(root: Buffer, dev: number, fs: StripFs): Buffer[] {
  const found: Buffer[] = [];
  const slash = Buffer.from('/');
  const walk = (dir: Buffer, opened = false): void => {
    let names: Buffer[];
    try {
      names = fs.readdirSync(dir);
    } catch (error) {
      // A folder the agent closed to its owner (ralph run as that user cannot read it): opened
      // to its owner for the walk below it, its mode put back after.
      if (!opened && (error as NodeJS.ErrnoException).code === 'EACCES') openedToOwner(dir, dev, () => walk(dir, true));
      return;
    }
    for (const name of names) {
      const path = Buffer.concat([dir, slash, name]);
      let stats: Stats;
      try {
        stats = fs.lstatSync(path);
      } catch {
        continue;
      }
      if (stats.dev !== dev) continue;
      if (stats.isDirectory()) walk(path);
      else if (stats.isFile() && (stats.mode & SET_ID_BITS) !== 0) found.push(path);
    }
  };
  walk(root);
  return found;
}

/** `use` called while the folder `dir` (on device `dev`, reached without following a link in its last name) can be read and searched by its owner. */
function openedToOwner(dir: Buffer, dev: number, use: () => void): void {
  let fd: number;
  try {
    fd = reach(dir, (short) => openSync(short, O_PATH | constants.O_NOFOLLOW | constants.O_DIRECTORY));
  } catch {
    return;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isDirectory() || stats.dev !== dev) return;
    const self = `/proc/self/fd/${fd}`;
    chmodSync(self, (stats.mode & 0o7777) | 0o500);
    try {
      use();
    } finally {
      chmodSync(self, stats.mode & 0o7777);
    }
  } catch {
    // Not ralph's to open (another user's folder), or gone: what is below it is left as it is.
  } finally {
    closeSync(fd);
  }
}

/**
 * The folders the agent writes beside the project (WORK_DIRS), as the links in their paths lead
 * when the run starts: the walk after each call starts from a folder, never through a link (one
 * the agent made there since leads nowhere it walks).
 */
export function walkedFolders(dirs: readonly string[] = []): string[] {
  return dirs.map((dir) => {
    try {
      return realpathSync(dir);
    } catch {
      return dir;
    }
  });
}

/** stripSetuidFiles, and the log says which files it changed. */
export async function stripPlantedSetuid(projectDir: string, logger: Logger, options: StripOptions = {}): Promise<void> {
  const stripped = await stripSetuidFiles(projectDir, options);
  if (stripped.length === 0) return;
  const shown = stripped
    .slice(0, 5)
    .map((path) => path.slice(projectDir.length + 1))
    .join(', ');
  logger.warn(`Cleared the setuid/setgid bit of ${stripped.length} file(s) made in the sandbox: ${shown}${stripped.length > 5 ? ', …' : ''}`);
}
