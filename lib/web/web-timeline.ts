// The web view's timeline of loops, from metrics.jsonl: one entry per line ralph (or the Bash
// tool) wrote, the newest TIMELINE_LOOPS kept. The file only grows while a run goes on, so the
// reader keeps what it parsed and reads only what was appended since: its last kilobyte read
// before is read again with it and compared, and a file that is not the one read before (another
// inode, shorter, or those bytes changed), or that grew by more than TIMELINE_TAIL_BYTES since,
// is read again from its last TIMELINE_TAIL_BYTES: what a look reads is bounded, whatever the
// agent (who can write .ralph/) appended or however long a line it left unfinished. The
// file is opened as the views open theirs (openViewFile): a FIFO or a link out of the project is
// an empty timeline, never a wait.

import { closeSync, type Stats } from 'node:fs';
import { openViewFile, viewFileStamp } from '../monitor/snapshot-loader.js';
import { projectBoundary, readRange } from '../state/control-file.js';
import { sanitizeLine } from '../text/terminal-text.js';

/** The loops the timeline keeps (the newest). */
export const TIMELINE_LOOPS = 200;
/** What is read of a file met for the first time (or rewritten): its end. */
export const TIMELINE_TAIL_BYTES = 96 * 1024;
/** The bytes before the end of the last reading that are read again and compared. */
const OVERLAP_BYTES = 1024;
const NEWLINE = 0x0a;

export interface TimelineLoop {
  loop: number;
  at: string;
  durationSeconds: number;
  success: boolean;
  /** The loop's outcome as metrics.jsonl names it (ours), e.g. `progress`, `no_progress`. */
  outcome?: string;
  /** What this loop cost (not the run's running total). */
  costUsd?: number;
  filesChanged?: number;
}

/** The line before, as far as the next line's cost needs it. */
interface LineBefore {
  loop: number;
  cumulativeCost?: number;
}

/**
 * metrics.jsonl lines to the timeline: a line that is not one ralph (or the Bash tool) wrote is
 * skipped. `cost_usd` is the run's cumulative cost, so a loop's cost is the step from the line
 * before in the same run (a run starts where `loop` does not go up), or `loop_cost_usd` when the
 * line carries it, as ralph-stats reads it.
 */
export function parseTimeline(text: string): TimelineLoop[] {
  return parseLines(text.split('\n'), undefined, []).loops;
}

/** `lines` after `before` appended to `loops`, the newest TIMELINE_LOOPS kept (a new array). Pure. */
function parseLines(lines: readonly string[], before: LineBefore | undefined, loops: readonly TimelineLoop[]): { loops: TimelineLoop[]; before?: LineBefore } {
  const added: TimelineLoop[] = [];
  let previous = before;
  for (const line of lines) {
    const step = parseLine(line, previous);
    if (!step) continue;
    previous = step.before;
    added.push(step.entry);
  }
  const all = added.length === 0 ? [...loops] : loops.concat(added);
  return { loops: all.slice(-TIMELINE_LOOPS), ...(previous ? { before: previous } : {}) };
}

/** One line's loop and what the next line needs of it; undefined for a line that is not a loop's. */
function parseLine(line: string, previous: LineBefore | undefined): { entry: TimelineLoop; before: LineBefore } | undefined {
  if (!line.trim()) return undefined;
  const value = parseJsonLine(line);
  if (typeof value !== 'object' || value === null) return undefined;
  const entry = value as Record<string, unknown>;
  const loop = finite(entry.loop);
  if (loop === undefined) return undefined;
  const sameRun = previous !== undefined && loop > previous.loop;
  const cumulative = finite(entry.cost_usd);
  const base = sameRun ? (previous!.cumulativeCost ?? 0) : 0;
  const loopCost = finite(entry.loop_cost_usd) ?? (cumulative === undefined ? undefined : Math.max(0, cumulative - base));
  const before = { loop, cumulativeCost: cumulative ?? (sameRun ? previous!.cumulativeCost : undefined) };
  const outcome = typeof entry.outcome === 'string' && entry.outcome.trim() ? sanitizeLine(entry.outcome).trim().slice(0, 40) : undefined;
  return {
    before,
    entry: {
      loop,
      at: typeof entry.timestamp === 'string' ? sanitizeLine(entry.timestamp).trim().slice(0, 40) : '',
      durationSeconds: finite(entry.duration) ?? 0,
      success: entry.success === true || entry.success === 'true',
      ...(outcome ? { outcome } : {}),
      ...(loopCost !== undefined ? { costUsd: Number(loopCost.toFixed(6)) } : {}),
      ...(finite(entry.files_changed) !== undefined ? { filesChanged: finite(entry.files_changed) } : {}),
    },
  };
}

/** A JSON line; one whose strings hold raw control characters (invalid JSON) is read without them. */
function parseJsonLine(line: string): unknown {
  for (const text of [line, line.replace(/[\u0000-\u001f]/g, ' ')]) {
    try {
      return JSON.parse(text);
    } catch {
      // the next form, or nothing
    }
  }
  return undefined;
}

function finite(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** What the reader holds of the file: the loops of its whole lines up to `end`, and the bytes just before `end`. */
interface Parsed {
  ino: number;
  end: number;
  overlap: Buffer;
  loops: TimelineLoop[];
  before?: LineBefore;
}

export interface TimelineReader {
  /** The timeline now: the same array as the last call's while the file is unchanged. */
  read(): TimelineLoop[];
}

export function createTimelineReader(path: string, projectDir: string): TimelineReader {
  const boundary = projectBoundary(projectDir);
  let stamp = '';
  let loops: TimelineLoop[] = [];
  let parsed: Parsed | undefined;
  return {
    read() {
      const now = viewFileStamp(path);
      if (now === stamp) return loops;
      stamp = now;
      const opened = now === 'missing' ? {} : openViewFile(path, projectDir, boundary);
      if (!('fd' in opened)) {
        parsed = undefined;
        return (loops = []);
      }
      try {
        const read = (parsed && readAppended(opened.fd, opened.stats, parsed)) ?? readTailEnd(opened.fd, opened.stats);
        parsed = read.parsed;
        // A last line without its newline yet is shown, and read again with the rest of it.
        loops = read.partial ? parseLines([read.partial], parsed.before, parsed.loops).loops : parsed.loops;
      } catch {
        parsed = undefined;
        loops = [];
      } finally {
        closeSync(opened.fd);
      }
      return loops;
    },
  };
}

/**
 * What was appended after `parsed`, or undefined when the file is not the one `parsed` read, or
 * grew by more than a first look reads (which then reads its end: a look never reads more).
 */
function readAppended(fd: number, stats: Stats, parsed: Parsed): { parsed: Parsed; partial: string } | undefined {
  if (stats.ino !== parsed.ino || stats.size < parsed.end || stats.size - parsed.end > TIMELINE_TAIL_BYTES - OVERLAP_BYTES) return undefined;
  const from = parsed.end - parsed.overlap.length;
  const bytes = readRange(fd, from, stats.size);
  if (bytes.length < parsed.overlap.length || !bytes.subarray(0, parsed.overlap.length).equals(parsed.overlap)) return undefined;
  return consume(bytes, from, parsed.overlap.length, stats.ino, parsed);
}

/** The file's last TIMELINE_TAIL_BYTES, from the first whole line in them. */
function readTailEnd(fd: number, stats: Stats): { parsed: Parsed; partial: string } {
  const from = Math.max(0, stats.size - TIMELINE_TAIL_BYTES);
  const bytes = readRange(fd, from, stats.size);
  const start = from === 0 ? 0 : bytes.indexOf(NEWLINE) + 1;
  // No whole line in them (one line longer than that): nothing to show, and nothing to read on
  // from (an inode no file has), so the next change is read the same way.
  if (from > 0 && start === 0) return { parsed: { ino: -1, end: 0, overlap: Buffer.alloc(0), loops: [] }, partial: '' };
  return consume(bytes, from, start, stats.ino, { loops: [] });
}

/** The whole lines of `bytes` (read at `from`) from index `start` added to `after`. */
function consume(bytes: Buffer, from: number, start: number, ino: number, after: Pick<Parsed, 'loops' | 'before'>): { parsed: Parsed; partial: string } {
  const lastBreak = bytes.lastIndexOf(NEWLINE);
  const end = lastBreak < start ? start : lastBreak + 1;
  const next =
    end === start ? { loops: after.loops, before: after.before } : parseLines(bytes.toString('utf8', start, end).split('\n'), after.before, after.loops);
  return {
    parsed: {
      ino,
      end: from + end,
      overlap: Buffer.from(bytes.subarray(Math.max(0, end - OVERLAP_BYTES), end)),
      loops: next.loops,
      ...(next.before ? { before: next.before } : {}),
    },
    partial: bytes.toString('utf8', end),
  };
}
