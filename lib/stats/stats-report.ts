// What `ralph-stats` reports, without the command line: the Bash tool's four numbers by default,
// the full summary with `full`, or the table for people. Reading the file is the only effect.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BashStats, MetricsSummary } from './metrics-summary.js';
import { readMetrics } from './read-metrics.js';
import { renderStatsTable } from './render-stats-table.js';

/** The Bash tool's message, printed as JSON on stderr (scripts parse it). */
export const NO_METRICS_ERROR = 'No metrics file found. Run ralph first to generate metrics.';

export interface StatsReportOptions {
  metricsPath: string;
  format: 'json' | 'table';
  /** JSON: the full summary instead of the Bash tool's four fields. */
  full?: boolean;
  sinceMs?: number;
  /** Shown in the table title. */
  source?: string;
}

export type StatsReport =
  | { kind: 'missing' }
  | { kind: 'json'; value: BashStats | MetricsSummary; skipped: number }
  | { kind: 'table'; text: string };

/** `${RALPH_DIR:-.ralph}/logs/metrics.jsonl`, as `ralph-stats.sh` finds it. */
export function metricsPathFor(cwd: string, env: NodeJS.ProcessEnv): string {
  return resolve(cwd, env.RALPH_DIR || '.ralph', 'logs', 'metrics.jsonl');
}

export function buildStatsReport(options: StatsReportOptions): StatsReport {
  if (!existsSync(options.metricsPath)) return { kind: 'missing' };
  const metrics = readMetrics(options.metricsPath, { sinceMs: options.sinceMs });
  if (options.format === 'table') {
    return { kind: 'table', text: renderStatsTable(metrics.summary(), { source: options.source ?? options.metricsPath }) };
  }
  // The Bash tool's four numbers need no sorting of durations or chart rows.
  return { kind: 'json', value: options.full ? metrics.summary() : metrics.bashStats(), skipped: metrics.skippedLines };
}
