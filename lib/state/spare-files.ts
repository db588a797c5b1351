// Spare files: each file writeFileAtomic replaces keeps, as its next temp file, the inode the
// rename would otherwise free. On ext4 a state write that creates a temp file and renames it
// over the old one allocates an inode, frees one and (auto_da_alloc) starts writeback of the
// new file at the rename: about 130 µs a write on this project's test machine, 12 µs through a
// spare. A loop makes some 18 writes; the spare halves the time from an agent's exit to the next
// spawn.
//
// A spare is `.<name>.tmp-<pid>-spare` beside its file (the temp-file pattern, so a dead
// writer's spare is swept like its temp files), and is used again only when the descriptor
// opened for it (no link followed) is the very inode this process kept there, with one link: a
// planted link, hard link, FIFO or another file under that name is removed unread and a fresh
// temp file is made. The inode kept is the one this process last renamed into place, with
// still one link: a file someone else put there (a hard link to a user's file, say) is never
// kept. Spares are removed when the process exits.

import { closeSync, constants, fstatSync, linkSync, lstatSync, openSync, renameSync, unlinkSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface Inode {
  dev: number;
  ino: number;
}

/** A spare opened for rewriting: its descriptor, name, inode and mode. */
export interface OpenSpare {
  fd: number;
  name: string;
  inode: Inode;
  mode: number;
}

/** The replaced file, held under a second name across the rename. */
export interface HeldFile {
  name: string;
  inode: Inode;
}

/** Per target: the inode kept at its spare name. */
const spares = new Map<string, Inode>();
/** Per target: the inode this process last renamed into place there. */
const placed = new Map<string, Inode>();
/** More targets than this (a long process writing many session files) drop their oldest spare. */
const KEPT_TARGETS = 256;
let exitHookSet = false;

function spareName(target: string): string {
  return join(dirname(target), `.${basename(target)}.tmp-${process.pid}-spare`);
}

function keptName(target: string): string {
  return join(dirname(target), `.${basename(target)}.tmp-${process.pid}-kept`);
}

const sameInode = (stats: Stats, inode: Inode | undefined): boolean => inode !== undefined && stats.dev === inode.dev && stats.ino === inode.ino;

/** The target's spare, opened for writing, when it is still the inode kept there; otherwise undefined (and no spare). */
export function takeSpare(target: string): OpenSpare | undefined {
  const kept = spares.get(target);
  if (kept === undefined) return undefined;
  spares.delete(target);
  const name = spareName(target);
  let fd: number;
  try {
    fd = openSync(name, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    unlinkQuietly(name);
    return undefined;
  }
  const stats = fstatSync(fd);
  if (!stats.isFile() || stats.nlink !== 1 || !sameInode(stats, kept)) {
    closeSync(fd);
    unlinkQuietly(name);
    return undefined;
  }
  return { fd, name, inode: kept, mode: stats.mode & 0o7777 };
}

/** Records the inode just renamed into place at `target`. */
export function notePlaced(target: string, inode: Inode): void {
  placed.delete(target);
  placed.set(target, inode);
  if (placed.size > KEPT_TARGETS) placed.delete(placed.keys().next().value!);
}

/**
 * Before the rename over `target`: gives the file there (`existing`, its lstat) a second name
 * when it is the one this process placed, still with one link, so the rename does not free it.
 * Returns what it holds, for keepReplaced after the rename.
 */
export function holdReplaced(target: string, existing: Stats | undefined): HeldFile | undefined {
  const inode = placed.get(target);
  if (existing === undefined || !existing.isFile() || existing.nlink !== 1 || !sameInode(existing, inode)) return undefined;
  const name = keptName(target);
  try {
    linkSync(target, name);
  } catch {
    unlinkQuietly(name);
    return undefined;
  }
  // Linked by name: what was linked must still be that inode, alone.
  const linked = lstatQuietly(name);
  if (linked === undefined || !sameInode(linked, inode) || linked.nlink !== 2) {
    unlinkQuietly(name);
    return undefined;
  }
  return { name, inode: inode! };
}

/** After the rename: the held inode becomes the target's spare. */
export function keepReplaced(target: string, held: HeldFile): void {
  const name = spareName(target);
  try {
    renameSync(held.name, name);
  } catch {
    unlinkQuietly(held.name);
    return;
  }
  spares.delete(target);
  spares.set(target, held.inode);
  if (spares.size > KEPT_TARGETS) dropSpare(spares.keys().next().value!);
  if (!exitHookSet) {
    exitHookSet = true;
    process.once('exit', releaseSpareFiles);
  }
}

/** Forgets the target's spare and removes it. */
export function dropSpare(target: string): void {
  spares.delete(target);
  unlinkQuietly(spareName(target));
}

/** Removes every spare this process keeps (at exit; tests call it to see a folder as a user will). */
export function releaseSpareFiles(): void {
  for (const target of [...spares.keys()]) dropSpare(target);
}

function lstatQuietly(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
