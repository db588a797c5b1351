// Keeps the newest N agent output logs in .ralph/logs, and no more than LOG_RETENTION_BYTES of
// them in all, so an overnight run cannot fill the disk (the Bash tool never pruned them).
// Output logs (`claude_output_*`, with their `_stream` companions) and stderr
// logs (`claude_stderr_*`) are each kept to N;
// ralph.log, metrics.jsonl and anything else in the folder are never touched.
// This runs after every loop over up to N logs, so its cost must not grow with them: the folder
// is listed (names only), and a log's size is measured once, the first time a prune meets it —
// the call that wrote it has ended by then, and ralph never writes a log again after its call —
// then taken from the caller's memory (LogSizes) for as long as the log is listed.

import { lstatSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

export interface PruneLogsResult {
  deleted: string[];
}

/** The size of each log a prune measured, by name: kept by the caller from one prune to the next. */
export type LogSizes = Map<string, number>;

const FAMILIES = [/^claude_output_(.+?)(?:_stream)?\.log$/, /^claude_stderr_(.+)\.log$/];

/** One call's log of one family (with its `_stream` companion), by its time key. */
interface LogGroup {
  key: string;
  names: string[];
}

/**
 * Deletes all but the newest `keep` logs of each family, then, while all the agent logs left
 * hold more than `maxBytes`, the oldest of them; the newest log of each family (the last call's)
 * always stays. keep ≤ 0, maxBytes ≤ 0: no limit of that kind. `sizes`: what earlier prunes of
 * this folder measured (updated here: logs no longer listed are forgotten).
 */
export function pruneAgentLogs(logsDir: string, keep: number, maxBytes = 0, sizes: LogSizes = new Map()): PruneLogsResult {
  if (!(keep > 0) && !(maxBytes > 0)) return { deleted: [] };
  let names: string[];
  try {
    names = readdirSync(logsDir);
  } catch {
    return { deleted: [] };
  }
  const deleted: string[] = [];
  const left: LogGroup[][] = [];
  for (const family of FAMILIES) {
    // Group a run's log with its `_stream` companion: both go or both stay.
    const groups = new Map<string, string[]>();
    for (const name of names) {
      const m = family.exec(name);
      if (!m) continue;
      const key = sortKey(m[1]!);
      groups.set(key, [...(groups.get(key) ?? []), name]);
    }
    // This runs after every loop over up to N logs: without a byte cap nothing is read unless something must go.
    const newestFirst =
      (keep > 0 && groups.size > keep) || maxBytes > 0 ? sortNewestFirst(logsDir, groups) : [...groups].map(([key, group]) => ({ key, names: group }));
    const kept = keep > 0 ? newestFirst.slice(0, keep) : newestFirst;
    for (const group of newestFirst.slice(kept.length)) removeGroup(logsDir, group, deleted);
    left.push(kept);
  }
  if (maxBytes > 0) pruneToBytes(logsDir, measureOnce(logsDir, sizes, left), left, maxBytes, deleted);
  for (const name of deleted) sizes.delete(name);
  return { deleted: deleted.sort() };
}

/** Newest first; only two names of one time can tie, and their files' ages decide, read once. */
function sortNewestFirst(logsDir: string, groups: Map<string, string[]>): LogGroup[] {
  const ages = new Map<string, number>();
  const newestOf = (key: string, group: string[]): number => {
    if (!ages.has(key)) ages.set(key, Math.max(...group.map((name) => mtimeOf(join(logsDir, name)))));
    return ages.get(key)!;
  };
  return [...groups.entries()]
    .sort(([a, la], [b, lb]) => byCodePoint(b, a) || newestOf(b, lb) - newestOf(a, la))
    .map(([key, group]) => ({ key, names: group }));
}

/** The sizes of the logs left: those measured before are not measured again; the others are, once. */
function measureOnce(logsDir: string, sizes: LogSizes, families: LogGroup[][]): (group: LogGroup) => number {
  const listed = new Set<string>();
  for (const family of families) for (const group of family) for (const name of group.names) listed.add(name);
  for (const name of sizes.keys()) if (!listed.has(name)) sizes.delete(name);
  const sizeOfName = (name: string): number => {
    let size = sizes.get(name);
    if (size === undefined) sizes.set(name, (size = sizeOf(join(logsDir, name))));
    return size;
  };
  return (group) => group.names.reduce((sum, name) => sum + sizeOfName(name), 0);
}

/** Keeps the newest logs (across families) that fit in `maxBytes`; from the first that does not, the older ones go. */
function pruneToBytes(logsDir: string, sizeOfGroup: (group: LogGroup) => number, families: LogGroup[][], maxBytes: number, deleted: string[]): void {
  // The last call's logs stay whatever their size: they are what the user looks at first.
  let total = 0;
  for (const family of families) if (family[0]) total += sizeOfGroup(family[0]);
  const older = families.flatMap((family) => family.slice(1)).sort((a, b) => byCodePoint(b.key, a.key));
  let full = false;
  for (const group of older) {
    const size = sizeOfGroup(group);
    full ||= total + size > maxBytes;
    if (full) removeGroup(logsDir, group, deleted);
    else total += size;
  }
}

/** Plain string order (the keys are digits and `_`), without the cost of a locale's collation. */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function removeGroup(logsDir: string, group: LogGroup, deleted: string[]): void {
  for (const name of group.names) {
    // A plain unlink (rmSync goes through its rimraf walk for every file); one already gone counts as deleted.
    try {
      unlinkSync(join(logsDir, name));
      deleted.push(name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') deleted.push(name);
      // otherwise in use or not a file: the next prune tries again
    }
  }
}

/**
 * Names carry local time (`2026-11-30_03-48-34`, or `20261130_034834` in stderr logs of older
 * versions) and, for two logs in one second, a `_2`, `_3` suffix: both stamp styles become one
 * and the suffix is padded, so string order is time order.
 */
function sortKey(stamp: string): string {
  const compact = stamp.replace(/-/g, '');
  const m = /^(.*?)(?:_(\d+))?$/.exec(compact)!;
  const base = m[1]!;
  // A suffix is only a counter when what precedes it is a full stamp.
  if (m[2] !== undefined && /\d{2}$/.test(base) && base.length >= 15) return `${base}_${m[2].padStart(6, '0')}`;
  return `${compact}_000001`;
}

function sizeOf(path: string): number {
  try {
    return lstatSync(path).size;
  } catch {
    return 0;
  }
}

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
