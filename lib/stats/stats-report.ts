// What `ralph-stats` reports, without the command line: the Bash tool's four numbers by default,
// the full summary with `full`, or the table for people. Reading the file is the only effect.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { summarizePartial, toBashStats, type BashStats, type MetricsSummary } from './metrics-summary.js';
import { readMetricsFile } from './read-metrics-file.js';
import { renderStatsTable } from './render-stats-table.js';
import { describeAgentBreakdown, readAgentBreakdown, type AgentTotals } from './agent-breakdown.js';

/** The Bash tool's message, printed as JSON on stderr (scripts parse it). */
export const NO_METRICS_ERROR = 'No metrics file found. Run ralph first to generate metrics.';

export interface StatsReportOptions {
  metricsPath: string;
  format: 'json' | 'table';
  /** JSON: the full summary instead of the Bash tool's four fields. */
  full?: boolean;
  sinceMs?: number;
  threads?: number;
  /** Shown in the table title. */
  source?: string;
}

export type StatsReport =
  | { kind: 'missing' }
  | { kind: 'json'; value: BashStats | (MetricsSummary & { by_agent: Record<string, AgentTotals> }); skipped: number }
  | { kind: 'table'; text: string };

/** `${RALPH_DIR:-.ralph}/logs/metrics.jsonl`, as `ralph-stats.sh` finds it. */
export function metricsPathFor(cwd: string, env: NodeJS.ProcessEnv): string {
  return resolve(cwd, env.RALPH_DIR || '.ralph', 'logs', 'metrics.jsonl');
}

export async function buildStatsReport(options: StatsReportOptions): Promise<StatsReport> {
  if (!existsSync(options.metricsPath)) return { kind: 'missing' };
  const detail = options.format === 'table' || options.full === true;
  const partial = await readMetricsFile(options.metricsPath, { detail, sinceMs: options.sinceMs, threads: options.threads });
  if (!detail) return { kind: 'json', value: toBashStats(partial), skipped: partial.skipped };
  const summary = summarizePartial(partial, { sinceMs: options.sinceMs });
  const byAgent = await readAgentBreakdown(options.metricsPath, options.sinceMs);
  if (options.format === 'table') {
    const table = renderStatsTable(summary, { source: options.source ?? options.metricsPath });
    const agents = describeAgentBreakdown(byAgent);
    return { kind: 'table', text: agents ? `${table.replace(/\n?$/, '\n')}${agents}\n` : table };
  }
  return { kind: 'json', value: { ...summary, by_agent: byAgent }, skipped: partial.skipped };
}
