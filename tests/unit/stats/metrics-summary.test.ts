// The reports folded from metrics lines: the Bash tool's four numbers (same values, same arithmetic
// as its jq program), runs and per-loop cost from cumulative cost_usd, percentiles, --since,
// the chart rows, and the table text.

import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MetricsSummarizer, percentile, type MetricLine } from '../../../lib/stats/metrics-summary.js';
import { readMetrics } from '../../../lib/stats/read-metrics.js';
import { bar, formatCount, formatSeconds, formatUsdCell, renderStatsTable } from '../../../lib/stats/render-stats-table.js';

const dir = mkdtempSync(join(tmpdir(), 'ralph-stats-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FIXTURES = new URL('../../fixtures/bash-state/', import.meta.url);

const read = (path: string, options?: Parameters<typeof readMetrics>[1], chartRows?: number) => readMetrics(path, options).summary(chartRows);
const bashStats = (path: string) => readMetrics(path).bashStats();

function fixtureMetrics(name: string): string {
  const path = join(dir, `${name}.jsonl`);
  cpSync(new URL(`${name}/logs/metrics.jsonl`, FIXTURES), path);
  return path;
}

function writeMetrics(lines: object[]): string {
  const path = join(dir, `m${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return path;
}

describe('Bash-compatible stats', () => {
  it.each([
    // The Bash tool's own "Metrics summary" for the completed run says exactly this (its ralph.log).
    ['completed', { total_loops: 5, successful: 5, avg_duration: 14.2, total_calls: 5 }],
    ['halted', { total_loops: 3, successful: 2, avg_duration: 14, total_calls: 3 }],
    ['midrun', { total_loops: 2, successful: 2, avg_duration: 14, total_calls: 2 }],
  ])("gives the Bash tool's numbers for its %s run", (name, expected) => {
    const path = fixtureMetrics(name);
    expect(bashStats(path)).toEqual(expected);
  });

  it('follows jq for odd lines: success must be true, missing durations count as loops', () => {
    const path = writeMetrics([
      { duration: 10, success: true, calls: 2 },
      { success: 'true', calls: 1 },
      { duration: 5, success: false },
    ]);
    expect(bashStats(path)).toEqual({ total_loops: 3, successful: 1, avg_duration: 5, total_calls: 3 });
  });

  it('reports zeros for an empty file', () => {
    expect(bashStats(writeMetrics([]))).toEqual({ total_loops: 0, successful: 0, avg_duration: 0, total_calls: 0 });
  });
});

describe('full summary', () => {
  const run = (loop: number, cost: number, extra: object = {}) => ({
    timestamp: `2026-11-30T04:${String(loop * 5).padStart(2, '0')}:00+00:00`,
    loop,
    duration: loop * 10,
    success: true,
    calls: 1,
    cost_usd: cost,
    files_changed: loop,
    outcome: 'ok',
    input_tokens: 100,
    output_tokens: 50,
    cache_read_tokens: 1000,
    cache_creation_tokens: 10,
    tokens: 150,
    ...extra,
  });

  it('counts runs where the loop number starts again and turns cumulative cost into per-loop cost', () => {
    // Two runs: 0.10 + 0.15 + 0.05 = 0.30, then 0.20 + 0.20 = 0.40.
    const path = writeMetrics([run(1, 0.1), run(2, 0.25), run(3, 0.3), run(1, 0.2), run(2, 0.4, { success: false, outcome: 'failed' })]);
    const s = read(path);
    expect(s.runs).toBe(2);
    expect(s.cost_usd).toEqual({ total: 0.7, per_loop: 0.14 });
    expect(s.success_rate).toBe(0.8);
    expect(s.tokens).toEqual({ input: 500, output: 250, cache_read: 5000, cache_creation: 50, total: 750 });
    expect(s.files_changed).toBe(9);
    expect(s.outcomes).toEqual({ ok: 4, failed: 1 });
    expect(s.duration_seconds).toEqual({ min: 10, p50: 20, p90: 30, p99: 30, max: 30, total: 90 });
    expect(s.first_timestamp).toBe('2026-11-30T04:05:00.000Z');
    expect(s.last_timestamp).toBe('2026-11-30T04:10:00.000Z');
    expect(s.chart.map((r) => r.cost_usd)).toEqual([0.1, 0.15, 0.05, 0.2, 0.2]);
  });

  it('prefers loop_cost_usd when a line carries it', () => {
    const path = writeMetrics([run(1, 0.1, { loop_cost_usd: 0.1 }), run(2, 0.25, { loop_cost_usd: 0.15 }), run(3, 99, { loop_cost_usd: 0.01 })]);
    expect(read(path).cost_usd!.total).toBeCloseTo(0.26, 9);
  });

  it('with --since keeps later loops and costs them from the line before the cut', () => {
    const path = writeMetrics([run(1, 0.1), run(2, 0.25), run(3, 0.3)]);
    const sinceMs = Date.UTC(2026, 10, 30, 4, 10);
    const s = read(path, { sinceMs });
    expect(s.total_loops).toBe(2);
    expect(s.runs).toBe(1);
    expect(s.cost_usd!.total).toBeCloseTo(0.2, 9);
    expect(s.since).toBe('2026-11-30T04:10:00.000Z');
  });

  it('leaves tokens and cost null for Bash-written metrics', () => {
    const s = read(fixtureMetrics('completed'));
    expect(s.tokens).toBeNull();
    expect(s.cost_usd).toBeNull();
    expect(s.files_changed).toBeNull();
    expect(s.runs).toBe(1);
  });

  it('groups loops into at most the requested chart rows', () => {
    const path = writeMetrics(Array.from({ length: 1000 }, (_, i) => run((i % 50) + 1, ((i % 50) + 1) * 0.01)));
    const s = read(path, {}, 10);
    expect(s.chart.length).toBeLessThanOrEqual(10);
    expect(s.chart[0]!.first_loop).toBe(1);
    expect(s.chart.at(-1)!.last_loop).toBe(1000);
    expect(s.chart.reduce((n, r) => n + r.loops, 0)).toBe(1000);
    expect(s.chart.reduce((n, r) => n + r.cost_usd, 0)).toBeCloseTo(s.cost_usd!.total, 6);
    expect(s.runs).toBe(20);
  });

  it('takes nearest-rank percentiles', () => {
    const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(sorted, 50), percentile(sorted, 90), percentile(sorted, 99), percentile(sorted, 100)]).toEqual([50, 90, 99, 100]);
    expect(percentile(Float64Array.of(7), 50)).toBe(7);
  });
});

describe('table', () => {
  it('shows runs, success rate, percentiles, tokens, cost and a chart', () => {
    const path = writeMetrics([
      {
        timestamp: '2026-11-30T04:00:00+00:00',
        loop: 1,
        duration: 30,
        success: true,
        calls: 1,
        cost_usd: 0.5,
        files_changed: 4,
        input_tokens: 1500,
        output_tokens: 500,
      },
      {
        timestamp: '2026-11-30T04:01:00+00:00',
        loop: 2,
        duration: 90,
        success: false,
        calls: 1,
        cost_usd: 0.75,
        files_changed: 0,
        input_tokens: 2000,
        output_tokens: 800,
        outcome: 'timeout',
      },
    ]);
    const text = renderStatsTable(read(path), { source: '.ralph/logs/metrics.jsonl' });
    expect(text).toContain('Ralph loop statistics (.ralph/logs/metrics.jsonl)');
    expect(text).toMatch(/Runs\s+1/);
    expect(text).toMatch(/Loops\s+2 · 1 successful \(50\.0%\)/);
    expect(text).toContain('p50 30s · p90 1m 30s');
    expect(text).toContain('in 3.5k · out 1.3k');
    expect(text).toContain('$0.7500 total · $0.3750 per loop');
    expect(text).toContain('files changed');
    const chart = text.split('\n').filter((l) => /^\s+\d+\s/.test(l));
    expect(chart).toHaveLength(2);
    expect(chart[0]).toContain('█'.repeat(20));
    expect(chart[0]).toContain('$0.5000');
  });

  it('says when there are no loops', () => {
    const text = renderStatsTable(read(writeMetrics([])), { source: 'm' });
    expect(text).toContain('No loops recorded.');
  });

  it('formats bars, times, counts and money', () => {
    expect(bar(1, 2)).toBe(`${'█'.repeat(10)}${' '.repeat(10)}`);
    expect(bar(1, 1000).trimEnd()).toBe('▏');
    expect(bar(0, 5).trim()).toBe('');
    expect([formatSeconds(14), formatSeconds(14.25), formatSeconds(71), formatSeconds(7260)]).toEqual(['14s', '14.3s', '1m 11s', '2h 01m']);
    expect([formatCount(999), formatCount(1500), formatCount(2_500_000)]).toEqual(['999', '1.5k', '2.5M']);
    expect([formatUsdCell(0.01234), formatUsdCell(12.5)]).toEqual(['$0.0123', '$12.50']);
  });
});

describe('the source of the test status', () => {
  it("counts statuses by where they came from: the gate, the agent's claim, not recorded, or none", () => {
    const s = new MetricsSummarizer({ size: 100 });
    const lines: MetricLine[] = [
      { loop: 1, tests_status: 'PASSING', tests_source: 'agent' },
      { loop: 2, tests_status: 'PASSING', tests_source: 'agent' },
      { loop: 3, tests_status: 'FAILING', tests_source: 'gate' },
      { loop: 4, tests_status: 'PASSING' },
      { loop: 5 },
    ];
    lines.forEach((line, i) => s.add(line, i));
    const summary = s.summary();
    expect(summary.tests_status).toEqual({ PASSING: 3, FAILING: 1 });
    expect(summary.tests_by_source).toEqual({ gate: { FAILING: 1 }, agent: { PASSING: 2 }, unrecorded: { PASSING: 1 }, none: 1 });
    expect(renderStatsTable(summary, { source: 'm' })).toContain(
      'Tests        run by the gate: FAILING 1 | claimed by the agent, not run: PASSING 2 | source not recorded: PASSING 1 | none: 1 loop(s)',
    );
  });
});
