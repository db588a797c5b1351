// `ralph-stats --format table`: the summary for people — runs, success rate, loop-time
// percentiles, token and cost totals — and a bar chart of progress and cost per group of loops.
// Pure: summary in, text out.

import type { ChartRow, MetricsSummary } from './metrics-summary.js';

const BAR_WIDTH = 20;
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const LABEL_WIDTH = 13;

export interface RenderTableOptions {
  /** Shown in the title (e.g. `.ralph/logs/metrics.jsonl`). */
  source: string;
}

export function renderStatsTable(s: MetricsSummary, options: RenderTableOptions): string {
  const lines = [`Ralph loop statistics (${options.source})`, ''];
  const row = (label: string, value: string) => lines.push(`${label.padEnd(LABEL_WIDTH)}${value}`);
  const since = s.since ? `since ${formatTime(s.since)}` : '';
  if (s.total_loops === 0) {
    lines.push(`No loops recorded${since ? ` ${since}` : ''}.`);
    if (s.skipped_lines > 0) row('Skipped', `${s.skipped_lines} unreadable line(s)`);
    return `${lines.join('\n')}\n`;
  }

  if (s.first_timestamp && s.last_timestamp) {
    row('Period', `${formatTime(s.first_timestamp)} → ${formatTime(s.last_timestamp)}${since ? `  (${since})` : ''}`);
  } else if (since) {
    row('Period', since);
  }
  row('Runs', String(s.runs));
  row('Loops', `${s.total_loops} · ${s.successful} successful (${(s.success_rate * 100).toFixed(1)}%)`);
  const d = s.duration_seconds;
  if (d) {
    row(
      'Loop time',
      [
        `p50 ${formatSeconds(d.p50)}`,
        `p90 ${formatSeconds(d.p90)}`,
        `p99 ${formatSeconds(d.p99)}`,
        `max ${formatSeconds(d.max)}`,
        `avg ${formatSeconds(s.avg_duration)}`,
        `total ${formatSeconds(d.total)}`,
      ].join(' · '),
    );
  }
  row('Calls', String(s.total_calls));
  const t = s.tokens;
  row(
    'Tokens',
    t
      ? [
          `in ${formatCount(t.input)}`,
          `out ${formatCount(t.output)}`,
          `cache read ${formatCount(t.cache_read)}`,
          `cache write ${formatCount(t.cache_creation)}`,
        ].join(' · ')
      : '– (not recorded; the Bash tool does not log tokens)',
  );
  row(
    'Cost',
    s.cost_usd
      ? `${formatUsdCell(s.cost_usd.total)} total · ${formatUsdCell(s.cost_usd.per_loop)} per loop`
      : '– (not recorded; the Bash tool does not log cost)',
  );
  if (s.files_changed !== null) row('Files', `${s.files_changed} changed`);
  if (Object.keys(s.outcomes).length > 0) row('Outcomes', formatCounts(s.outcomes));
  if (Object.keys(s.tests_status).length > 0) row('Tests', formatTestsBySource(s.tests_by_source));
  if (s.exit_signals > 0) row('Exit signals', String(s.exit_signals));
  if (s.skipped_lines > 0) row('Skipped', `${s.skipped_lines} unreadable line(s)`);
  lines.push('', ...renderChart(s));
  return `${lines.join('\n')}\n`;
}

function renderChart(s: MetricsSummary): string[] {
  const rows = s.chart;
  if (rows.length === 0) return [];
  const byFiles = s.files_changed !== null;
  const withCost = s.cost_usd !== null;
  const progressOf = (r: ChartRow) => (byFiles ? r.files_changed : r.successful);
  const maxProgress = Math.max(...rows.map(progressOf));
  const maxCost = Math.max(...rows.map((r) => r.cost_usd));
  const labels = rows.map((r) => (r.first_loop === r.last_loop ? `${r.first_loop}` : `${r.first_loop}–${r.last_loop}`));
  const labelWidth = Math.max('Loops'.length, ...labels.map((l) => l.length));
  const progressTitle = byFiles ? 'files changed' : 'successful loops';
  const head = `${'Loops'.padStart(labelWidth)}  ${progressTitle.padEnd(BAR_WIDTH + 8)}${withCost ? '  cost' : ''}`;
  const out = [head.trimEnd()];
  rows.forEach((r, i) => {
    const progress = progressOf(r);
    let line = `${labels[i]!.padStart(labelWidth)}  ${bar(progress, maxProgress)} ${String(progress).padStart(7)}`;
    if (withCost) line += `  ${bar(r.cost_usd, maxCost)} ${formatUsdCell(r.cost_usd)}`;
    out.push(line.trimEnd());
  });
  return out;
}

/** A bar of up to BAR_WIDTH cells in eighths; any non-zero value shows at least a sliver. */
export function bar(value: number, max: number): string {
  if (!(max > 0) || !(value > 0)) return ' '.repeat(BAR_WIDTH);
  const eighths = Math.max(1, Math.round((value / max) * BAR_WIDTH * 8));
  const text = '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]!;
  return text.padEnd(BAR_WIDTH);
}

export function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)}s`;
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  return `${m}m ${String(sec).padStart(2, '0')}s`;
}

export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  for (const [size, suffix] of [
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'k'],
  ] as const) {
    if (n >= size) return `${(n / size).toFixed(1)}${suffix}`;
  }
  return String(n);
}

export function formatUsdCell(usd: number): string {
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

function formatCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([name, n]) => `${name} ${n}`)
    .join(' · ');
}

/**
 * The test statuses with their source: a status the gate measured is a fact, one the agent
 * claimed (TESTS_STATUS, when no gate ran) is not, and must not read as one.
 */
function formatTestsBySource(t: MetricsSummary['tests_by_source']): string {
  const parts: string[] = [];
  if (Object.keys(t.gate).length > 0) parts.push(`run by the gate: ${formatCounts(t.gate)}`);
  if (Object.keys(t.agent).length > 0) parts.push(`claimed by the agent, not run: ${formatCounts(t.agent)}`);
  if (Object.keys(t.unrecorded).length > 0) parts.push(`source not recorded: ${formatCounts(t.unrecorded)}`);
  if (t.none > 0) parts.push(`none: ${t.none} loop(s)`);
  return parts.join(' | ');
}

/** `2026-11-30 03:48 UTC` from an ISO string. */
function formatTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
