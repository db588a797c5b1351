// Keeps the newest N agent output logs in .ralph/logs so an overnight run cannot fill the disk
// (the Bash tool never pruned them, reference §11.1). Output logs (`claude_output_*`, with
// their `_stream` companions) and stderr logs (`claude_stderr_*`) are each kept to N;
// ralph.log, metrics.jsonl and anything else in the folder are never touched.

import { readdirSync, rmSync, statSync } from 'node:fs';
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
    const logs = names.flatMap((name) => {
      const m = family.exec(name);
      return m ? [{ name, key: sortKey(m[1]!), mtime: mtimeOf(join(logsDir, name)) }] : [];
    });
    // Group a run's log with its `_stream` companion: both go or both stay.
    const groups = new Map<string, typeof logs>();
    for (const log of logs) groups.set(log.key, [...(groups.get(log.key) ?? []), log]);
    const newestFirst = [...groups.entries()].sort(
      ([a, la], [b, lb]) => b.localeCompare(a) || Math.max(...lb.map((l) => l.mtime)) - Math.max(...la.map((l) => l.mtime)),
    );
    for (const [, group] of newestFirst.slice(keep)) {
      for (const log of group) {
        try {
          rmSync(join(logsDir, log.name), { force: true });
          deleted.push(log.name);
        } catch {
          // in use or already gone: the next prune tries again
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
