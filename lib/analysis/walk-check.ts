// The content snapshot's stat check made from the walk after an agent's call
// (lib/platform/tree-changes.ts) instead of git's: that walk named every entry of the project
// whose ctime is past the last snapshot's stamp (less a margin), and the folder walk names the
// folders read again or gone since. A cached file is unchanged when the private index vouches
// for it (its stat was old enough when cached, its folder reached through folders of the
// project's device), the walk did not name it, and neither walk named its folder — or its
// folder is still the same folder and holds every file listed in it. A file added, removed,
// renamed or linked changes its folder; one that came in by any of those ways has a new ctime,
// so the walk named it, and one that left is missing from the folder's names; a folder swapped
// for a link or another folder, or mounted over, is gone or another folder (device and inode)
// in the folder walk, and every folder below it is gone or read again.

import type { Dirent } from 'node:fs';
import { entryPosition, filesIn, indexPositions, type StatIndex } from './stat-index.js';
import type { FolderWalker } from '../platform/folder-walk.js';
import type { ChangedEntries, TreeChanges } from '../platform/tree-changes.js';

// Named entries looked up one by one in the index's order; past this, a map of the index's paths is made.
const NAMED_LOOKED_UP = 1024;

/**
 * Which of a listing's files are unchanged: `vouched` (aligned with the listing) but for the
 * files named and those right in a folder named (`isFolder`: a folder the folder walk found)
 * or read again or gone (`folders`) — unless that folder is the one it was (`kept`: the names
 * in it now, when the folder walk found the same folder there) and still holds every file
 * listed in it; undefined when the project's own folder is named (every file would be looked
 * at: git compares them faster).
 */
export function unchangedAfterWalk(
  slots: { index: StatIndex; vouched: Uint8Array; pathOf: Int32Array },
  named: readonly string[],
  folders: readonly string[],
  prefix: string,
  isFolder: (entry: string) => boolean,
  kept: (dir: string) => ReadonlySet<string> | undefined = () => undefined,
): Uint8Array | undefined {
  const around = new Set([...folders, ...named.filter(isFolder)]);
  if (around.has('')) return undefined;
  const { index, pathOf } = slots;
  const unchanged = slots.vouched.slice();
  const drop = (at: number | undefined): void => {
    if (at !== undefined && at >= 0 && pathOf[at]! >= 0) unchanged[pathOf[at]!] = 0;
  };
  // A few named entries are looked up in the index's order; many, through a map made for them.
  if (named.length <= NAMED_LOOKED_UP) for (const entry of named) drop(entryPosition(index, entry));
  else {
    const positions = indexPositions(index);
    for (const entry of named) drop(positions.get(entry));
  }
  // Every file right in such a folder is looked at (a folder below it that changed, or was
  // swapped or mounted over, is named by one walk or the other), but where the folder is the
  // same and no listed file left it: a file that came in by any way (made, renamed, linked)
  // got a new ctime, so the walk named it.
  for (const dir of around) {
    const start = `${prefix}${dir}/`;
    const files = filesIn(index, start);
    const names = kept(dir);
    if (names && files.every((at) => names.has(index.names[at]!.slice(start.length)))) continue;
    for (const at of files) drop(at);
  }
  return unchanged;
}

/** The names in each folder the folder walk found to be the same folder since walk `generation` (unchangedAfterWalk's `kept`). */
export function keptFolders(
  walker: FolderWalker,
  generation: number,
  readFolder: (rel: string) => readonly Dirent[] | undefined,
): (dir: string) => Set<string> | undefined {
  return (dir) => {
    const entries = walker.sameFolderSince(dir, generation) ? readFolder(dir) : undefined;
    return entries && new Set(entries.map((entry) => entry.name));
  };
}

// How long before the stamp the walk after a call names changed entries from: a timestamp comes
// from the kernel's coarse clock, and another file's may lag the stamp's by a tick.
export const WALK_MARGIN_MS = 1000;

/** One snapshotter's requests to the walk after each call: asked at each snapshot, taken at the next. */
export class WalkRequests {
  // The last snapshot's request (its stamp less the margin), its stamp, and the folder walk it listed with.
  private asked: { since: number; stamp: number; walk: number } | undefined;

  constructor(
    private readonly changes: TreeChanges | undefined,
    private readonly folders: FolderWalker | undefined,
    private readonly margin = WALK_MARGIN_MS,
  ) {}

  /** The walk posted for this snapshot (stamp `stamp`) and the folder walk the last one listed with, when it was asked for by the last snapshot and the clock did not go back since. */
  take(stamp: number): { walk: ChangedEntries; walkedAt: number } | undefined {
    const walk = this.changes?.take();
    const asked = this.asked;
    return walk && asked && walk.since === asked.since && stamp >= asked.stamp ? { walk, walkedAt: asked.walk } : undefined;
  }

  /**
   * Asks the next walk for the entries changed since this snapshot's stamp (less the margin),
   * after its folder walk; `walked`: the walk this snapshot took its stat check from, whose start
   * is then the time its files were last looked at.
   */
  ask(stamp: number, listed: number, walked?: ChangedEntries): void {
    const walk = this.folders?.latest()?.generation;
    this.asked = undefined;
    if (!this.changes || walk === undefined || !Number.isFinite(stamp)) return;
    this.asked = { since: Math.min(stamp, walked?.startedAt ?? stamp) - this.margin, stamp, walk };
    this.changes.want(this.asked.since, listed);
  }
}
