// Keeps the newest N agent output logs in .ralph/logs so an overnight run cannot fill the disk
// (the Bash tool never pruned them, reference §11.1). Output logs (`claude_output_*`, with
// their `_stream` companions) and stderr logs (`claude_stderr_*`) are each kept to N;
// ralph.log, metrics.jsonl and anything else in the folder are never touched.

import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

export interface PruneLogsResult {
  deleted: string[];
}

const FAMILIES = [/^claude_output_(.+?)(?:_stream)?\.log$/, /^claude_stderr_(.+)\.log$/];

/** Deletes all but the newest `keep` logs of each family; keep ≤ 0 keeps everything. */
export function pruneAgentLogs(logsDir: string, keep: number): PruneLogsResult {
  if (!(keep > 0)) return { deleted: [] };
  let names: string[];
  try {
    names = readdirSync(logsDir);
  } catch {
    return { deleted: [] };
  }
  const deleted: string[] = [];
  for (const family of FAMILIES) {
    // Group a run's log with its `_stream` companion: both go or both stay.
    const groups = new Map<string, string[]>();
    for (const name of names) {
      const m = family.exec(name);
      if (!m) continue;
      const key = sortKey(m[1]!);
      groups.set(key, [...(groups.get(key) ?? []), name]);
    }
    // This runs after every loop over up to N logs: nothing is read unless something must go.
    if (groups.size <= keep) continue;
    // Only two names of one time can tie; their files' ages decide, read once.
    const ages = new Map<string, number>();
    const newestOf = (key: string, group: string[]): number => {
      if (!ages.has(key)) ages.set(key, Math.max(...group.map((name) => mtimeOf(join(logsDir, name)))));
      return ages.get(key)!;
    };
    const newestFirst = [...groups.entries()].sort(([a, la], [b, lb]) => b.localeCompare(a) || newestOf(b, lb) - newestOf(a, la));
    for (const [, group] of newestFirst.slice(keep)) {
      for (const name of group) {
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
  }
  return { deleted: deleted.sort() };
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

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
