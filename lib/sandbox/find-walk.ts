// The host's `find` over the project after a call, for the setuid clean-up (strip-setuid.ts):
// the regular files with a setuid or setgid bit and, asked for by the content snapshot, every
// entry whose ctime is past a time (lib/platform/tree-changes.ts). Where the tree is large and the
// machine has cores to spare, the project's top entries are shared out among walks that run side by side (as git
// lstats the files of `git status` on threads); a top entry on another device is not entered, as
// `find . -xdev` does not enter it (each is stat'ed only where the mount table lists a file
// system mounted below the project). No path of the project is in the arguments: the starting
// points are read from stdin, `.` runs from the project itself.

import { lstatSync, readdirSync, readFileSync, realpathSync, type Stats } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { ProcessRunner } from '../platform/process.js';

export interface FindOptions {
  processRunner: ProcessRunner;
  env?: NodeJS.ProcessEnv;
  /** The stat of a top entry (tests count them). */
  lstat?: (path: Buffer) => Stats;
  /** The mount table's text (/proc/self/mountinfo; tests give their own). */
  mountInfo?: () => string;
}

// `find`'s test for a regular file with a setuid or setgid bit. -P (the default) follows no link.
export const SET_ID_FILE = ['-type', 'f', '(', '-perm', '-4000', '-o', '-perm', '-2000', ')'];
// A walk of a huge tree on a slow disk may take minutes; past this, the walk is made in ralph.
const FIND_TIMEOUT_MS = 10 * 60_000;
// Walks side by side at most.
const MOST_WALKS = 4;
// Below this many files listed by the snapshot, one walk: a second `find` costs ralph a spawn (a
// fork of its whole process) for less than it saves on a small tree.
const SPLIT_FROM_FILES = 10_000;

/** How many walks side by side for a project the content snapshot listed `listed` files of (undefined: not known). */
export function walksFor(listed: number | undefined): number {
  return listed !== undefined && listed < SPLIT_FROM_FILES ? 1 : Math.min(MOST_WALKS, availableParallelism());
}

/** What `find <args>` printed, run in `root` with `input` on stdin; undefined when it failed. */
export async function runFind(root: Buffer, args: string[], options: FindOptions, input = ''): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  const exit = await options.processRunner.start('find', args, {
    cwd: root.toString(),
    ...(options.env ? { env: options.env } : {}),
    input,
    timeoutMs: FIND_TIMEOUT_MS,
    onStdout: (chunk) => chunks.push(chunk),
  }).done;
  // Not found, stopped, a test it does not know, or a folder it could not read: what it said may be short of the whole tree.
  return exit.spawnError || exit.code !== 0 ? undefined : Buffer.concat(chunks);
}

export function splitNul(out: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  for (let at = 0; at < out.length;) {
    const end = out.indexOf(0, at);
    parts.push(out.subarray(at, end === -1 ? out.length : end));
    at = end === -1 ? out.length : end + 1;
  }
  return parts;
}

/**
 * The set-id files under `root` (full paths) and every entry whose ctime is after `after` (a
 * `find -newerct` time), project-relative ('' for the project's folder), by `walks` walks side
 * by side (walksFor); undefined when find failed or does not know those tests.
 */
export async function findChanged(
  root: Buffer,
  after: string,
  options: FindOptions,
  walks: number,
): Promise<{ setId: Buffer[]; entries: string[] } | undefined> {
  const expression = ['(', ...SET_ID_FILE, '-printf', 'S%p\\0', ')', ',', '(', '-newerct', after, '-printf', 'C%p\\0', ')'];
  const lstat = options.lstat ?? lstatSync;
  const before = lstatOrUndefined(root, lstat);
  const shares = before && topShares(root, before.dev, walks, lstat, () => mountedBelow(root, options.mountInfo));
  let outs = shares && (await Promise.all(shares.map((names) => runFind(root, ['-files0-from', '-', '-xdev', ...expression], options, names.join('')))));
  // An entry made at the top since it was read (nothing of the agent should run now): one walk from `.`.
  if (!outs || outs.some((out) => !out) || !sameStat(before!, lstatOrUndefined(root, lstat)))
    outs = [await runFind(root, ['.', '-xdev', ...expression], options)];
  if (outs.some((out) => !out)) return undefined;
  const setId: Buffer[] = [];
  const entries: string[] = [];
  // From `.`, find names the project `.` and the rest `./path`; from the top entries, `path`.
  if (shares && outs.length === shares.length && before!.ctimeMs > Number(after.slice(1)) * 1000) entries.push('');
  for (const out of outs) {
    for (const entry of splitNul(out!)) {
      if (entry.length < 2) continue;
      const path = entry[1] === 0x2e && (entry.length === 2 || entry[2] === 0x2f) ? entry.subarray(Math.min(entry.length, 3)) : entry.subarray(1);
      if (entry[0] === 0x53 && path.length > 0) setId.push(Buffer.concat([root, Buffer.from('/'), path]));
      entries.push(path.toString('utf8'));
    }
  }
  return { setId, entries };
}

/**
 * The project's top entries shared out among `walks` walks (names, each ending in NUL), but those
 * on another device (each is stat'ed where a file system is mounted below the project:
 * `mounted`); undefined where one walk from `.` is as good: one core, or a name that is no UTF-8
 * (stdin is text).
 */
function topShares(root: Buffer, dev: number, walks: number, lstat: (path: Buffer) => Stats, mounted: () => boolean): string[][] | undefined {
  if (walks < 2) return undefined;
  let names: Buffer[];
  try {
    names = readdirSync(root, { encoding: 'buffer' });
  } catch {
    return undefined;
  }
  const shares: string[][] = Array.from({ length: walks }, () => []);
  const statEach = mounted();
  let next = 0;
  for (const name of names.sort(Buffer.compare)) {
    const text = name.toString('utf8');
    if (!Buffer.from(text).equals(name)) return undefined;
    const st = statEach ? lstatOrUndefined(Buffer.concat([root, Buffer.from('/'), name]), lstat) : undefined;
    if (statEach && !st) return undefined;
    if (!st || st.dev === dev) shares[next++ % walks]!.push(`${text}\0`);
  }
  return shares.filter((share) => share.length > 0);
}

function lstatOrUndefined(path: Buffer, lstat: (path: Buffer) => Stats): Stats | undefined {
  try {
    return lstat(path);
  } catch {
    return undefined;
  }
}

/**
 * Whether a file system is mounted somewhere below `root`, as the mount table of ralph's own
 * mount namespace lists it (what a stat would see); true when that cannot be told.
 */
export function mountedBelow(root: Buffer, mountInfo: () => string = () => readFileSync('/proc/self/mountinfo', 'utf8')): boolean {
  let below: string;
  let table: string;
  try {
    below = `${realpathSync.native(root.toString())}/`;
    table = mountInfo();
  } catch {
    return true;
  }
  // A mount point that is no UTF-8 could be any path.
  if (table.includes('\uFFFD')) return true;
  // Each line: id, parent id, device, root, mount point (spaces and the like as octal escapes), …
  for (const line of table.split('\n')) {
    const point = line.split(' ')[4];
    if (point === undefined) continue;
    const path = point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
    if (`${path}/`.startsWith(below) && `${path}/` !== below) return true;
  }
  return false;
}

function sameStat(a: Stats, b: Stats | undefined): boolean {
  return b !== undefined && a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}
