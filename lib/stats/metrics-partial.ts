// What ralph-stats has learned from a stretch of metrics.jsonl: sums, counts, loop durations,
// chart blocks, and the edge facts (first and last line) needed to join two stretches read
// separately — so a large file can be read in parallel and give exactly the sequential answer.
//
// Runs and per-loop cost come from neighbouring lines: a run starts where `loop` does not go up,
// and `cost_usd` is the run's cumulative cost, so a loop's cost is the step from the line before
// (or `loop_cost_usd` when a line carries it).

import { F, NUMBER, STRING, TRUE } from './metrics-fields.js';
import type { MetricsLineScanner } from './metrics-line-scanner.js';

/** Chart blocks over a whole file: its bytes are cut into this many equal stretches. */
export const CHART_BLOCKS = 4096;

/**
 * Per-block sums for the chart. A line belongs to the block its first byte falls in, so the
 * blocks are the same however the file was cut into ranges to read (and the chart the same on
 * any number of threads); a range holds only the blocks it touches, and memory stays bounded.
 */
export interface ChartBlocks {
  /** File-wide block number of each entry, ascending. */
  index: number[];
  lines: number[];
  successful: number[];
  files: number[];
  cost: number[];
}

export interface MetricsPartial {
  lines: number;
  skipped: number;
  successful: number;
  durationSum: number;
  callsSum: number;
  /** Loop durations in seconds, in file order (only when collected). */
  durations: Float64Array;
  durationCount: number;
  runs: number;
  cost: number;
  costLines: number;
  tokens: { input: number; output: number; cacheRead: number; cacheCreation: number; total: number };
  tokenLines: number;
  files: number;
  fileLines: number;
  exitSignals: number;
  outcomes: Record<string, number>;
  tests: Record<string, number>;
  firstMs: number;
  lastMs: number;
  blocks: ChartBlocks;
  edge: PartialEdge;
}

/** The facts about a stretch's first and last line that joining it to a neighbour needs. */
export interface PartialEdge {
  hasLines: boolean;
  firstLoop: number | null;
  firstCum: number;
  firstKept: boolean;
  /** The first line's cost was its whole `cost_usd` (read as a run start). */
  firstCostFromCum: boolean;
  /** A run was counted before any run start inside the stretch. */
  firstSegmentCounted: boolean;
  /** Some line after the first starts a run. */
  innerRunStart: boolean;
  lastLoop: number | null;
  lastCum: number;
  /** The stretch's last run has a kept line. */
  lastRunKept: boolean;
}

export interface PartialOptions {
  /** Keep only lines at or after this time (ms). */
  sinceMs?: number;
  /** Collect durations and chart blocks (the table and full report need them). */
  detail: boolean;
  /** Bytes of the file per chart block (see chartBlockBytes; default 1). */
  chartBlockBytes?: number;
}

/** The chart block size for a file of `size` bytes: CHART_BLOCKS blocks at most. */
export function chartBlockBytes(size: number): number {
  return Math.max(1, Math.ceil(size / CHART_BLOCKS));
}

export function emptyPartial(): MetricsPartial {
  return {
    lines: 0, skipped: 0, successful: 0, durationSum: 0, callsSum: 0,
    durations: new Float64Array(0), durationCount: 0, runs: 0, cost: 0, costLines: 0,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0, total: 0 }, tokenLines: 0,
    files: 0, fileLines: 0, exitSignals: 0, outcomes: {}, tests: {},
    firstMs: Number.NaN, lastMs: Number.NaN,
    blocks: { index: [], lines: [], successful: [], files: [], cost: [] },
    edge: {
      hasLines: false, firstLoop: null, firstCum: Number.NaN, firstKept: false, firstCostFromCum: false,
      firstSegmentCounted: false, innerRunStart: false, lastLoop: null, lastCum: Number.NaN, lastRunKept: false,
    },
  };
}

/** Where a line sits in the file, so its timestamp can be read again later. */
export interface LineSpan {
  offset: number;
  length: number;
}

/**
 * Folds scanned lines into a partial, one at a time, in file order. Per-line work is kept to
 * sums and typed-array writes; strings are tallied in Maps and everything is turned into the
 * plain partial by finish().
 */
export class PartialBuilder {
  private readonly partial = emptyPartial();
  private readonly outcomes = new Map<string, number>();
  private readonly tests = new Map<string, number>();
  private readonly blockBytes: number;
  private keptInRun = false;
  /** The last kept line, whose timestamp finish() needs. */
  lastKept: LineSpan | undefined;

  constructor(private readonly options: PartialOptions) {
    this.blockBytes = Math.max(1, options.chartBlockBytes ?? 1);
  }

  skip(): void {
    this.partial.skipped++;
  }

  add(s: MetricsLineScanner, span: LineSpan): void {
    const p = this.partial;
    const edge = p.edge;
    const kinds = s.kinds;
    const nums = s.numbers;
    const loop = kinds[F.loop] === NUMBER ? nums[F.loop]! : null;
    const first = !edge.hasLines;
    const runStart = first || (loop !== null && edge.lastLoop !== null && loop <= edge.lastLoop);
    if (runStart) this.keptInRun = false;
    if (runStart && !first) edge.innerRunStart = true;

    const cum = kinds[F.cost_usd] === NUMBER ? nums[F.cost_usd]! : Number.NaN;
    let lineCost = Number.NaN;
    let costFromCum = false;
    if (kinds[F.loop_cost_usd] === NUMBER) lineCost = nums[F.loop_cost_usd]!;
    else if (!Number.isNaN(cum)) {
      const step = !runStart && !Number.isNaN(edge.lastCum) && cum >= edge.lastCum;
      lineCost = step ? cum - edge.lastCum : cum;
      costFromCum = !step;
    }

    let kept = true;
    if (this.options.sinceMs !== undefined) {
      const ms = s.timestampMs();
      kept = !Number.isNaN(ms) && ms >= this.options.sinceMs;
    }
    if (first) {
      edge.hasLines = true;
      edge.firstLoop = loop;
      edge.firstCum = cum;
      edge.firstKept = kept;
      edge.firstCostFromCum = costFromCum;
    }
    edge.lastLoop = loop;
    edge.lastCum = cum;
    if (kept && !this.keptInRun) {
      this.keptInRun = true;
      p.runs++;
      if (!edge.innerRunStart) edge.firstSegmentCounted = true;
    }
    edge.lastRunKept = this.keptInRun;
    if (!kept) return;
    if (p.lines === 0 && this.options.detail) p.firstMs = s.timestampMs();
    this.lastKept = span;
    this.count(s, lineCost, span.offset);
  }

  /** The partial, with `lastMs` from the last kept line's timestamp (read by the caller). */
  finish(lastKeptMs: number): MetricsPartial {
    const p = this.partial;
    p.lastMs = lastKeptMs;
    p.outcomes = Object.fromEntries(this.outcomes);
    p.tests = Object.fromEntries(this.tests);
    p.durations = p.durations.slice(0, p.durationCount);
    return p;
  }

  private count(s: MetricsLineScanner, lineCost: number, offset: number): void {
    const p = this.partial;
    const kinds = s.kinds;
    const nums = s.numbers;
    p.lines++;
    const success = kinds[F.success] === TRUE;
    if (success) p.successful++;
    const durationKnown = kinds[F.duration] === NUMBER;
    if (durationKnown) p.durationSum += nums[F.duration]!;
    if (kinds[F.calls] === NUMBER) p.callsSum += nums[F.calls]!;
    if (!this.options.detail) return;

    if (durationKnown) this.pushDuration(nums[F.duration]!);
    const costKnown = !Number.isNaN(lineCost);
    if (costKnown) {
      p.cost += lineCost;
      p.costLines++;
    }
    this.countTokens(s);
    const filesKnown = kinds[F.files_changed] === NUMBER;
    const files = filesKnown ? nums[F.files_changed]! : 0;
    if (filesKnown) {
      p.files += files;
      p.fileLines++;
    }
    if (kinds[F.exit_signal] === TRUE) p.exitSignals++;
    if (kinds[F.outcome] === STRING) tally(this.outcomes, s.string(F.outcome)!);
    if (kinds[F.tests_status] === STRING) tally(this.tests, s.string(F.tests_status)!);
    this.addToBlock(Math.floor(offset / this.blockBytes), success ? 1 : 0, files, costKnown ? lineCost : 0);
  }

  private countTokens(s: MetricsLineScanner): void {
    const kinds = s.kinds;
    const nums = s.numbers;
    const t = this.partial.tokens;
    const hasInput = kinds[F.input_tokens] === NUMBER;
    const hasOutput = kinds[F.output_tokens] === NUMBER;
    const input = hasInput ? nums[F.input_tokens]! : 0;
    const output = hasOutput ? nums[F.output_tokens]! : 0;
    if (kinds[F.cache_read_tokens] === NUMBER) t.cacheRead += nums[F.cache_read_tokens]!;
    if (kinds[F.cache_creation_tokens] === NUMBER) t.cacheCreation += nums[F.cache_creation_tokens]!;
    t.input += input;
    t.output += output;
    // `tokens` is input + output (what the hourly token budget counts).
    const hasTotal = kinds[F.tokens] === NUMBER;
    if (hasTotal) t.total += nums[F.tokens]!;
    else t.total += input + output;
    if (hasTotal || hasInput || hasOutput) this.partial.tokenLines++;
  }

  private pushDuration(duration: number): void {
    const p = this.partial;
    if (p.durationCount === p.durations.length) {
      const grown = new Float64Array(Math.max(1024, p.durations.length * 2));
      grown.set(p.durations);
      p.durations = grown;
    }
    p.durations[p.durationCount++] = duration;
  }

  private addToBlock(index: number, success: number, files: number, cost: number): void {
    const b = this.partial.blocks;
    let last = b.index.length - 1;
    if (last < 0 || b.index[last] !== index) {
      b.index.push(index);
      b.lines.push(0);
      b.successful.push(0);
      b.files.push(0);
      b.cost.push(0);
      last++;
    }
    b.lines[last]! += 1;
    b.successful[last]! += success;
    b.files[last]! += files;
    b.cost[last]! += cost;
  }
}

function tally(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}
