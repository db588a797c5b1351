// What one walk of the whole project after an agent's call saw changed, handed from the walk that
// clears setuid bits (lib/sandbox/strip-setuid.ts) to the content snapshot that follows it
// (lib/analysis/content-snapshot.ts): the project's files are lstat'ed once after a call, not
// twice. The snapshot asks for the entries changed since its stamp, less a margin for the
// kernel's coarse clock; the walk names every entry (file, link, folder) whose ctime is that late
// or later. Any change to an entry — its content, its mode, a rename, a link to it, `touch -d` —
// sets its ctime to the clock's now, and only root can set the clock. A walk stands for the next
// snapshot only: a step that changes the tree after it (the guards putting a file back, the
// disarm step) drops it, and a clock seen stepping back drops it too; the snapshot then checks
// every file itself.

export interface ChangedEntries {
  /** The time (ms since the epoch, the filesystem's clock) from which the entries are named. */
  since: number;
  /** Every entry whose ctime is at or after `since`, project-relative ('' is the project's own folder). */
  entries: string[];
  /** When the walk started (ms since the epoch): a change after it may be missing from `entries`. */
  startedAt: number;
}

export interface TreeChanges {
  /** The wall clock's now (ms since the epoch): when a walk starts. */
  now(): number;
  /** From when the next walk should name changed entries; undefined: no snapshot asks. */
  wanted(): number | undefined;
  /** How many files the asking snapshot listed; undefined: it did not say. */
  listed(): number | undefined;
  /** The snapshot (of `listed` files) asks for the entries changed from `since` on (drops any walk posted before). */
  want(since: number, listed?: number): void;
  /** A walk named these entries as changed from `since` on. */
  post(walk: ChangedEntries): void;
  /** Something changed the tree after the walk: it no longer stands. */
  stale(): void;
  /** The walk posted since the last `want`, if it stands; taken once. */
  take(): ChangedEntries | undefined;
}

/** The clocks compared: the wall clock (files' times come from it) and a monotonic one, both in ms. */
export interface TreeChangeClocks {
  wall: () => number;
  monotonic: () => number;
}

// A wall clock set back by more than this since the snapshot asked: changes made since may carry
// a ctime before `since`.
const CLOCK_STEP_MS = 250;

const systemClocks: TreeChangeClocks = { wall: () => Date.now(), monotonic: () => performance.now() };

export function createTreeChanges(clocks: TreeChangeClocks = systemClocks): TreeChanges {
  let asked: { since: number; offset: number; listed: number | undefined } | undefined;
  let posted: ChangedEntries | undefined;
  const offset = (): number => clocks.wall() - clocks.monotonic();
  const clockHeld = (): boolean => asked !== undefined && offset() > asked.offset - CLOCK_STEP_MS;
  return {
    now: () => clocks.wall(),
    wanted: () => asked?.since,
    listed: () => asked?.listed,
    want(since, listed) {
      asked = { since, offset: offset(), listed };
      posted = undefined;
    },
    post(walk) {
      posted = asked && walk.since === asked.since && clockHeld() ? walk : undefined;
    },
    stale() {
      posted = undefined;
    },
    take() {
      const walk = posted;
      posted = undefined;
      return walk && clockHeld() ? walk : undefined;
    },
  };
}
