// Reading metrics.jsonl in ranges: lines across read boundaries, lines longer than the buffer,
// blank and torn lines, and — the property the parallel reader rests on — any split of the file
// into line-aligned ranges, joined in order, gives exactly the sequential result.

import fc from 'fast-check';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { joinPartials } from '../../../lib/stats/join-partials.js';
import { ALL_FIELDS, BASH_FIELDS } from '../../../lib/stats/metrics-fields.js';
import type { MetricsPartial } from '../../../lib/stats/metrics-partial.js';
import { readMetricsRange, splitIntoLineRanges } from '../../../lib/stats/read-metrics-range.js';

const dir = mkdtempSync(join(tmpdir(), 'ralph-stats-range-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;

function writeLines(lines: string[], trailingNewline = true): string {
  const path = join(dir, `m${fileCount++}.jsonl`);
  writeFileSync(path, lines.join('\n') + (trailingNewline && lines.length > 0 ? '\n' : ''));
  return path;
}

const detailOptions = { detail: true, fields: ALL_FIELDS };

function readWhole(path: string, options: Parameters<typeof readMetricsRange>[2] = detailOptions): MetricsPartial {
  return readMetricsRange(path, { start: 0, end: statSync(path).size }, options);
}

describe('readMetricsRange', () => {
  it('counts Bash-style lines, ignores blank lines and counts torn ones as skipped', () => {
    const path = writeLines([
      '{"timestamp":"2026-11-30T03:48:48+00:00","loop":1,"duration":14,"success":true,"calls":1}',
      '',
      '   ',
      '{"timestamp":"2026-11-30T03:49:08+00:00","loop":2,"duration":15,"success":false,"calls":1}',
      '{"timestamp":"2026-11-30T03:49:28+00:00","loop":3,"dur',
    ]);
    const p = readWhole(path, { detail: false, fields: BASH_FIELDS });
    expect(p).toMatchObject({ lines: 2, successful: 1, durationSum: 29, callsSum: 2, skipped: 1 });
  });

  it('reads a last line without a newline', () => {
    const path = writeLines(['{"duration":1,"success":true,"calls":1}', '{"duration":2,"success":true,"calls":3}'], false);
    expect(readWhole(path)).toMatchObject({ lines: 2, durationSum: 3, callsSum: 4 });
  });

  it('carries lines across reads and grows for a line longer than the buffer', () => {
    const pad = 'x'.repeat(3 * 1024 * 1024);
    const lines = Array.from({ length: 30_000 }, (_, i) => JSON.stringify({ loop: i + 1, duration: i % 7, success: i % 3 === 0, calls: 1 }));
    lines.splice(100, 0, JSON.stringify({ loop: 0, duration: 1000, success: true, calls: 1, note: pad }));
    const p = readWhole(writeLines(lines));
    expect(p.lines).toBe(30_001);
    expect(p.durationSum).toBe(lines.reduce((sum, l) => sum + (JSON.parse(l) as { duration: number }).duration, 0));
    expect(p.successful).toBe(10_001);
  });

  it('splits a file at line starts only', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ loop: i, duration: 1, success: true, calls: 1 }));
    const path = writeLines(lines);
    const size = statSync(path).size;
    const ranges = splitIntoLineRanges(path, size, 7);
    expect(ranges[0]!.start).toBe(0);
    expect(ranges.at(-1)!.end).toBe(size);
    const offsets = new Set<number>();
    let offset = 0;
    for (const line of lines) {
      offsets.add(offset);
      offset += line.length + 1;
    }
    for (const r of ranges) expect(offsets.has(r.start)).toBe(true);
    expect(ranges.map((r) => readMetricsRange(path, r, detailOptions)).reduce(joinPartials).lines).toBe(1000);
  });

  it('joined ranges equal one sequential read, for any split and --since', () => {
    const line = fc.record(
      {
        timestamp: fc.integer({ min: 0, max: 50 }).map((m) => `2026-11-30T04:${String(m).padStart(2, '0')}:00+00:00`),
        loop: fc.integer({ min: 1, max: 6 }),
        duration: fc.integer({ min: 0, max: 900 }),
        success: fc.boolean(),
        calls: fc.integer({ min: 0, max: 2 }),
        cost_usd: fc.integer({ min: 0, max: 5000 }).map((c) => c / 1000),
        loop_cost_usd: fc.integer({ min: 0, max: 500 }).map((c) => c / 1000),
        files_changed: fc.integer({ min: 0, max: 9 }),
        outcome: fc.constantFrom('ok', 'failed', 'timeout'),
        input_tokens: fc.integer({ min: 0, max: 1000 }),
        output_tokens: fc.integer({ min: 0, max: 1000 }),
      },
      { requiredKeys: ['timestamp', 'success'] },
    );
    const entries = fc.array(fc.oneof({ weight: 9, arbitrary: line.map((l) => JSON.stringify(l)) }, { weight: 1, arbitrary: fc.constant('garbage') }), { maxLength: 120 });
    fc.assert(
      fc.property(entries, fc.array(fc.nat(), { maxLength: 5 }), fc.option(fc.integer({ min: 0, max: 50 })), (lines, cuts, sinceMinute) => {
        const path = writeLines(lines);
        const sinceMs = sinceMinute === null ? undefined : Date.UTC(2026, 10, 30, 4, sinceMinute);
        // Chart blocks of 512 bytes hold a few lines each, so cuts fall inside blocks too.
        const options = { ...detailOptions, sinceMs, chartBlockBytes: 512 };
        const whole = readWhole(path, options);
        // Cut points at line starts, in order.
        const starts: number[] = [];
        let offset = 0;
        for (const l of lines) {
          starts.push(offset);
          offset += Buffer.byteLength(l) + 1;
        }
        const bounds = [...new Set(cuts.map((c) => starts[c % Math.max(1, starts.length)] ?? 0))].filter((b) => b > 0).sort((a, b) => a - b);
        const edges = [0, ...bounds, offset];
        const parts = edges.slice(0, -1).map((start, i) => readMetricsRange(path, { start, end: edges[i + 1]! }, options));
        const joined = parts.reduce(joinPartials);
        expectSamePartial(joined, whole);
      }),
      { numRuns: 150 },
    );
  });
});

function expectSamePartial(actual: MetricsPartial, expected: MetricsPartial): void {
  for (const key of ['lines', 'skipped', 'successful', 'durationSum', 'callsSum', 'durationCount', 'runs', 'costLines',
    'tokenLines', 'files', 'fileLines', 'exitSignals', 'firstMs', 'lastMs'] as const) {
    expect(actual[key], key).toEqual(expected[key]);
  }
  expect(actual.cost).toBeCloseTo(expected.cost, 9);
  expect(Array.from(actual.durations)).toEqual(Array.from(expected.durations));
  expect(actual.tokens).toEqual(expected.tokens);
  expect(actual.outcomes).toEqual(expected.outcomes);
  // The chart blocks are cut by byte offset, whatever the ranges: they must match block for block.
  expect(actual.blocks.index).toEqual(expected.blocks.index);
  expect(actual.blocks.lines).toEqual(expected.blocks.lines);
  expect(actual.blocks.files).toEqual(expected.blocks.files);
  actual.blocks.cost.forEach((c, i) => expect(c).toBeCloseTo(expected.blocks.cost[i]!, 9));
}
