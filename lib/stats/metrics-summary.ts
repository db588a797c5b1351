// The two reports ralph-stats prints from a finished partial: the Bash tool's four numbers
// (its exact field names and arithmetic, so existing scripts keep working) and the full summary
// behind `--format table` and `--full`.

import type { MetricsPartial } from './metrics-partial.js';

/** `ralph-stats.sh` output: count, `.success == true` count, mean `.duration`, sum of `.calls`. */
export interface BashStats {
  total_loops: number;
  successful: number;
  avg_duration: number;
  total_calls: number;
}

export interface ChartRow {
  /** 1-based positions of the first and last loop in the row (file order, across runs). */
  first_loop: number;
  last_loop: number;
  loops: number;
  successful: number;
  files_changed: number;
  cost_usd: number;
}

export interface MetricsSummary extends BashStats {
  runs: number;
  success_rate: number;
  skipped_lines: number;
  since: string | null;
  first_timestamp: string | null;
  last_timestamp: string | null;
  duration_seconds: { min: number; p50: number; p90: number; p99: number; max: number; total: number } | null;
  tokens: { input: number; output: number; cache_read: number; cache_creation: number; total: number } | null;
  cost_usd: { total: number; per_loop: number } | null;
  files_changed: number | null;
  exit_signals: number;
  outcomes: Record<string, number>;
  tests_status: Record<string, number>;
  chart: ChartRow[];
}

export function toBashStats(p: MetricsPartial): BashStats {
  return {
    total_loops: p.lines,
    successful: p.successful,
    // jq: `(map(.duration) | add) / length` — a missing duration adds nothing but still counts.
    avg_duration: p.lines > 0 ? p.durationSum / p.lines : 0,
    total_calls: p.callsSum,
  };
}

export interface SummaryOptions {
  sinceMs?: number;
  /** Rows in the per-loop chart (fewer when there are fewer loops). */
  chartRows?: number;
}

export function summarizePartial(p: MetricsPartial, options: SummaryOptions = {}): MetricsSummary {
  const durations = p.durations.slice(0, p.durationCount).sort();
  return {
    ...toBashStats(p),
    runs: p.runs,
    success_rate: p.lines > 0 ? round(p.successful / p.lines, 4) : 0,
    skipped_lines: p.skipped,
    since: options.sinceMs === undefined ? null : new Date(options.sinceMs).toISOString(),
    first_timestamp: Number.isNaN(p.firstMs) ? null : new Date(p.firstMs).toISOString(),
    last_timestamp: Number.isNaN(p.lastMs) ? null : new Date(p.lastMs).toISOString(),
    duration_seconds:
      durations.length === 0
        ? null
        : {
            min: durations[0]!,
            p50: percentile(durations, 50),
            p90: percentile(durations, 90),
            p99: percentile(durations, 99),
            max: durations[durations.length - 1]!,
            total: p.durationSum,
          },
    tokens:
      p.tokenLines === 0 && p.tokens.cacheRead === 0 && p.tokens.cacheCreation === 0
        ? null
        : {
            input: p.tokens.input,
            output: p.tokens.output,
            cache_read: p.tokens.cacheRead,
            cache_creation: p.tokens.cacheCreation,
            total: p.tokens.total,
          },
    cost_usd: p.costLines === 0 ? null : { total: round(p.cost, 6), per_loop: round(p.cost / p.costLines, 6) },
    files_changed: p.fileLines === 0 ? null : p.files,
    exit_signals: p.exitSignals,
    outcomes: p.outcomes,
    tests_status: p.tests,
    chart: buildChartRows(p, options.chartRows ?? 12),
  };
}

/** Nearest-rank percentile of ascending values. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

function buildChartRows(p: MetricsPartial, rows: number): ChartRow[] {
  const b = p.blocks;
  const total = b.lines.reduce((sum, n) => sum + n, 0);
  if (total === 0) return [];
  const target = Math.ceil(total / Math.max(1, rows));
  const out: ChartRow[] = [];
  let row: ChartRow | undefined;
  let position = 0;
  for (let i = 0; i < b.lines.length; i++) {
    if (!row) {
      row = { first_loop: position + 1, last_loop: position, loops: 0, successful: 0, files_changed: 0, cost_usd: 0 };
      out.push(row);
    }
    row.loops += b.lines[i]!;
    row.successful += b.successful[i]!;
    row.files_changed += b.files[i]!;
    row.cost_usd += b.cost[i]!;
    position += b.lines[i]!;
    row.last_loop = position;
    if (row.loops >= target) row = undefined;
  }
  for (const r of out) r.cost_usd = round(r.cost_usd, 6);
  return out;
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
