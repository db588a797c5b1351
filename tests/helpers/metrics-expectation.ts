// expectedFullReport(text): what `ralph-stats --full` must say about a metrics.jsonl, computed
// straight from its lines by the documented rules, with none of lib/stats' reading, joining or
// summing — so a test can hold the real reader (ranges, threads, seams) to it. Money is
// compared to 5 decimals (the report rounds it to 6; sums in another order differ in the last bits).

import { expect } from 'vitest';
import { CHART_BLOCKS } from '../../lib/stats/metrics-summary.js';

export interface MetricsRecord {
  timestamp?: string;
  loop?: number;
  duration?: number;
  success?: boolean;
  calls?: number;
  tokens?: number;
  input_tokens?: number;
  output_tokens?: number;
  cache_read_tokens?: number;
  cache_creation_tokens?: number;
  cost_usd?: number;
  files_changed?: number;
  exit_signal?: boolean;
  tests_status?: string;
  tests_source?: string;
  outcome?: string;
}

const money = (value: number) => expect.closeTo(value, 5);
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** The `--full` report for `text` (one JSON object a line), with the default 12 chart rows. */
export function expectedFullReport(text: string, chartRows = 12): Record<string, unknown> {
  const lines: Array<{ offset: number; r: MetricsRecord }> = [];
  let offset = 0;
  for (const raw of text.split('\n')) {
    if (raw.trim() !== '') lines.push({ offset, r: JSON.parse(raw) as MetricsRecord });
    offset += Buffer.byteLength(raw) + 1;
  }
  const size = Buffer.byteLength(text);
  const records = lines.map((l) => l.r);
  const n = records.length;

  // A run starts at the first line and wherever `loop` does not go up; `cost_usd` is the run's
  // cumulative cost, so a loop costs the step from the line before.
  let runs = 0;
  const costs = records.map((r, i) => {
    const before = records[i - 1];
    const runStart = i === 0 || (r.loop !== undefined && before?.loop !== undefined && r.loop <= before.loop);
    if (runStart) runs++;
    if (r.cost_usd === undefined) return undefined;
    const step = !runStart && before?.cost_usd !== undefined && r.cost_usd >= before.cost_usd;
    return step ? r.cost_usd - before.cost_usd! : r.cost_usd;
  });
  const knownCosts = costs.filter((c): c is number => c !== undefined);

  const durations = records.flatMap((r) => (r.duration === undefined ? [] : [r.duration])).sort((a, b) => a - b);
  const rank = (p: number) => durations[Math.min(Math.max(1, Math.ceil((p / 100) * durations.length)), durations.length) - 1];
  const count = (values: Array<string | undefined>) => {
    const out: Record<string, number> = {};
    for (const v of values) if (v !== undefined) out[v] = (out[v] ?? 0) + 1;
    return out;
  };
  const tokenLines = records.filter((r) => r.tokens !== undefined || r.input_tokens !== undefined || r.output_tokens !== undefined);
  const field = (name: keyof MetricsRecord) => sum(records.map((r) => (r[name] as number | undefined) ?? 0));
  const timestamps = records.flatMap((r) => (r.timestamp === undefined ? [] : [new Date(r.timestamp).toISOString()]));
  const successful = records.filter((r) => r.success === true).length;

  return {
    total_loops: n,
    successful,
    avg_duration: n > 0 ? field('duration') / n : 0,
    total_calls: field('calls'),
    runs,
    success_rate: n > 0 ? round(successful / n, 4) : 0,
    skipped_lines: 0,
    since: null,
    first_timestamp: records[0]?.timestamp === undefined ? null : timestamps[0],
    last_timestamp: records[n - 1]?.timestamp === undefined ? null : timestamps[timestamps.length - 1],
    duration_seconds:
      durations.length === 0
        ? null
        : { min: durations[0], p50: rank(50), p90: rank(90), p99: rank(99), max: durations[durations.length - 1], total: sum(durations) },
    tokens:
      tokenLines.length === 0 && field('cache_read_tokens') === 0 && field('cache_creation_tokens') === 0
        ? null
        : {
            input: field('input_tokens'),
            output: field('output_tokens'),
            cache_read: field('cache_read_tokens'),
            cache_creation: field('cache_creation_tokens'),
            total: sum(records.map((r) => r.tokens ?? (r.input_tokens ?? 0) + (r.output_tokens ?? 0))),
          },
    cost_usd: knownCosts.length === 0 ? null : { total: money(sum(knownCosts)), per_loop: money(sum(knownCosts) / knownCosts.length) },
    files_changed: records.some((r) => r.files_changed !== undefined) ? field('files_changed') : null,
    exit_signals: records.filter((r) => r.exit_signal === true).length,
    outcomes: count(records.map((r) => r.outcome)),
    tests_status: count(records.map((r) => r.tests_status)),
    tests_by_source: {
      gate: count(records.filter((r) => r.tests_source === 'gate').map((r) => r.tests_status)),
      agent: count(records.filter((r) => r.tests_source === 'agent').map((r) => r.tests_status)),
      unrecorded: count(records.filter((r) => r.tests_source !== 'gate' && r.tests_source !== 'agent').map((r) => r.tests_status)),
      none: records.filter((r) => typeof r.tests_status !== 'string').length,
    },
    chart: expectedChart(
      lines.map((l, i) => ({ offset: l.offset, r: l.r, cost: costs[i] ?? 0 })),
      size,
      chartRows,
    ),
    by_agent: expectedByAgent(records, costs),
  };
}

/** Loops, successes, tokens and cost of each agent (no `agent`: Claude's). */
function expectedByAgent(records: MetricsRecord[], costs: Array<number | undefined>) {
  const out: Record<string, { loops: number; successful: number; input_tokens: number; output_tokens: number; cache_read_tokens: number; cost_usd: number }> =
    {};
  records.forEach((r, i) => {
    const agent = (r as { agent?: string }).agent ?? 'claude';
    const t = (out[agent] ??= { loops: 0, successful: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cost_usd: 0 });
    t.loops++;
    if (r.success === true) t.successful++;
    t.input_tokens += r.input_tokens ?? 0;
    t.output_tokens += r.output_tokens ?? 0;
    t.cache_read_tokens += r.cache_read_tokens ?? 0;
    t.cost_usd += costs[i] ?? 0;
  });
  return Object.fromEntries(Object.entries(out).map(([name, t]) => [name, { ...t, cost_usd: money(t.cost_usd) }]));
}

// The chart's rows: the file's bytes cut into CHART_BLOCKS equal blocks (a line is in the block
// of its first byte), whole blocks taken in order until a row holds ⌈loops / rows⌉ loops.
function expectedChart(lines: Array<{ offset: number; r: MetricsRecord; cost: number }>, size: number, rows: number) {
  if (lines.length === 0) return [];
  const blockBytes = Math.max(1, Math.ceil(size / CHART_BLOCKS));
  const target = Math.ceil(lines.length / rows);
  const out: Array<{ first_loop: number; last_loop: number; loops: number; successful: number; files_changed: number; cost: number }> = [];
  let open: (typeof out)[number] | undefined;
  for (let i = 0; i < lines.length; i++) {
    const { offset, r, cost } = lines[i]!;
    if (!open) out.push((open = { first_loop: i + 1, last_loop: i, loops: 0, successful: 0, files_changed: 0, cost: 0 }));
    open.loops++;
    open.last_loop = i + 1;
    if (r.success === true) open.successful++;
    open.files_changed += r.files_changed ?? 0;
    open.cost += cost;
    const blockEnds = i + 1 === lines.length || Math.floor(lines[i + 1]!.offset / blockBytes) !== Math.floor(offset / blockBytes);
    if (blockEnds && open.loops >= target) open = undefined;
  }
  return out.map(({ cost, ...row }) => ({ ...row, cost_usd: money(cost) }));
}
