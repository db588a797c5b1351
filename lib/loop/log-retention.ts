// Keeps the newest N agent output logs in .ralph/logs, and no more than LOG_RETENTION_BYTES of
// them in all, so an overnight run cannot fill the disk (the Bash tool never pruned them).
// Output logs (`claude_output_*`, with their `_stream` companions) and stderr
// logs (`claude_stderr_*`) are each kept to N;
// ralph.log, metrics.jsonl and anything else in the folder are never touched.
// This runs after every loop over up to N logs, so its cost must not grow with them: the folder
// is listed (names only), and what a name says (its family and time) and a log's size are worked
// out once, the first time a prune meets it — the call that wrote the log has ended by then, and
// ralph never writes a log again after its call — then kept in the caller's memory (LogMemory)
// for as long as the name is listed. The logs are put in order only when some must go.

import { lstatSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

export interface PruneLogsResult {
  deleted: string[];
}

/** An agent log as a prune first met it: its family, its time key, and its size once measured. */
interface KnownLog {
  family: number;
  key: string;
  size?: number;
}

/** What prunes of one folder learned of each name listed there (null: not an agent log), kept from one prune to the next. */
export type LogMemory = Map<string, KnownLog | null>;

const FAMILIES = [/^claude_output_(.+?)(?:_stream)?\.log$/, /^claude_stderr_(.+)\.log$/];

/** One call's log of one family (with its `_stream` companion), by its time key. */
interface LogGroup {
  key: string;
  names: string[];
}

/**
 * Deletes all but the newest `keep` logs of each family, then, while all the agent logs left
 * hold more than `maxBytes`, the oldest of them; the newest log of each family (the last call's)
 * always stays. keep ≤ 0, maxBytes ≤ 0: no limit of that kind. `memory`: what earlier prunes of
 * this folder learned (updated here; names no longer listed are forgotten).
 */
export function pruneAgentLogs(logsDir: string, keep: number, maxBytes = 0, memory: LogMemory = new Map()): PruneLogsResult {
  if (!(keep > 0) && !(maxBytes > 0)) return { deleted: [] };
  let names: string[];
  try {
    names = readdirSync(logsDir);
  } catch {
    return { deleted: [] };
  }
  const families = groupByFamily(names, memory);
  const sizeOf = (logs: readonly string[]): number => logs.reduce((sum, name) => sum + measuredSize(logsDir, name, memory.get(name)!), 0);
  const overCount = keep > 0 && families.some((groups) => groups.size > keep);
  const overBytes = maxBytes > 0 && families.reduce((sum, groups) => sum + [...groups.values()].reduce((s, logs) => s + sizeOf(logs), 0), 0) > maxBytes;
  const deleted: string[] = [];
  if (overCount || overBytes) {
    const left: LogGroup[][] = [];
    for (const groups of families) {
      const newestFirst = sortNewestFirst(logsDir, groups);
      const kept = keep > 0 ? newestFirst.slice(0, keep) : newestFirst;
      for (const group of newestFirst.slice(kept.length)) removeGroup(logsDir, group, deleted);
      left.push(kept);
    }
    if (maxBytes > 0) pruneToBytes(logsDir, (group) => sizeOf(group.names), left, maxBytes, deleted);
  }
  for (const name of deleted) memory.delete(name);
  return { deleted: deleted.sort() };
}

/** The agent logs listed, per family, grouped by time key (a log with its `_stream` companion); the memory keeps just the names listed. */
function groupByFamily(names: string[], memory: LogMemory): Map<string, string[]>[] {
  const families = FAMILIES.map(() => new Map<string, string[]>());
  const listed = new Set(names);
  for (const name of memory.keys()) if (!listed.has(name)) memory.delete(name);
  for (const name of names) {
    let known = memory.get(name);
    if (known === undefined) memory.set(name, (known = classify(name)));
    if (known === null) continue;
    const groups = families[known.family]!;
    const group = groups.get(known.key);
    if (group) group.push(name);
    else groups.set(known.key, [name]);
  }
  return families;
}

function classify(name: string): KnownLog | null {
  for (const [family, pattern] of FAMILIES.entries()) {
    const m = pattern.exec(name);
    if (m) return { family, key: sortKey(m[1]!) };
  }
  return null;
}

function measuredSize(logsDir: string, name: string, known: KnownLog): number {
  known.size ??= sizeOf(join(logsDir, name));
  return known.size;
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
