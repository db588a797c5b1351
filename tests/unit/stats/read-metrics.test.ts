// Reading metrics.jsonl line by line: lines across read boundaries, lines longer than the buffer,
// blank, torn and non-object lines, values JSON.parse reads its own way — and the property the
// report rests on: it depends on the file alone (any read size gives the same bytes of output),
// and equals the report computed from the lines without lib/stats.

import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readMetrics as openMetrics } from '../../../lib/stats/read-metrics.js';
import { expectedFullReport } from '../../helpers/metrics-expectation.js';

const dir = mkdtempSync(join(tmpdir(), 'ralph-stats-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;

function writeText(text: string): string {
  const path = join(dir, `m${fileCount++}.jsonl`);
  writeFileSync(path, text);
  return path;
}

const readMetrics = (path: string, options?: Parameters<typeof openMetrics>[1], chartRows?: number) => openMetrics(path, options).summary(chartRows);
const writeLines = (lines: string[]) => writeText(lines.length > 0 ? `${lines.join('\n')}\n` : '');

describe('readMetrics', () => {
  it('counts Bash-style lines, ignores blank lines and counts torn and non-object ones as skipped', () => {
    const path = writeLines([
      '{"timestamp":"2026-11-30T03:48:48+00:00","loop":1,"duration":14,"success":true,"calls":1}',
      '',
      '  \t \r',
      '{"timestamp":"2026-11-30T03:49:08+00:00","loop":2,"duration":15,"success":false,"calls":1}',
      '[1,2,3]',
      '42',
      'null',
      'Loop 3 finished',
      '{"duration":1}{"duration":2}',
      '{"timestamp":"2026-11-30T03:49:28+00:00","loop":3,"dur',
    ]);
    expect(readMetrics(path)).toMatchObject({ total_loops: 2, successful: 1, avg_duration: 14.5, total_calls: 2, skipped_lines: 6 });
  });

  it('reads a last line without a newline, and CRLF lines', () => {
    const path = writeText('{"duration":1,"success":true,"calls":1}\r\n{"duration":2,"success":true,"calls":3}');
    expect(readMetrics(path)).toMatchObject({ total_loops: 2, avg_duration: 1.5, total_calls: 4, skipped_lines: 0 });
  });

  it('reads lines as JSON.parse does: spacing, escapes, nesting, duplicate keys, strings where numbers belong', () => {
    const path = writeLines([
      '{ "success" : false , "duration" : 7.25 , "calls":2 }',
      '{"outcome":"fa\\"il\\u00e9d","tests_status":"✓ passing","success":true}',
      '{"meta":{"duration":99,"x":[1,{"y":2}]},"duration":5,"success":true}',
      '{"dur\\u0061tion":12,"success":true}',
      '{"duration":1,"duration":2,"calls":1}',
      '{"duration":"14","success":"true","calls":null}',
    ]);
    expect(readMetrics(path)).toMatchObject({
      total_loops: 6,
      successful: 3,
      total_calls: 3,
      avg_duration: (7.25 + 5 + 12 + 2) / 6,
      outcomes: { 'fa"iléd': 1 },
      tests_status: { '✓ passing': 1 },
    });
  });

  it('carries lines across reads and grows for a line longer than the buffer', () => {
    const pad = 'x'.repeat(3 * 1024 * 1024);
    const lines = Array.from({ length: 30_000 }, (_, i) => JSON.stringify({ loop: i + 1, duration: i % 7, success: i % 3 === 0, calls: 1 }));
    lines.splice(100, 0, JSON.stringify({ loop: 0, duration: 1000, success: true, calls: 1, note: pad }));
    const s = readMetrics(writeLines(lines), { chunkBytes: 64 * 1024 });
    expect(s.total_loops).toBe(30_001);
    expect(s.duration_seconds!.total).toBe(lines.reduce((sum, l) => sum + (JSON.parse(l) as { duration: number }).duration, 0));
    expect(s.successful).toBe(10_001);
    expect(s.skipped_lines).toBe(0);
  });

  it('gives the same report whether a line goes through the fast reader or JSON.parse', () => {
    const lines = Array.from({ length: 40 }, (_, i) => ({
      timestamp: `2026-11-30T04:${String(i).padStart(2, '0')}:00+00:00`,
      loop: (i % 7) + 1,
      duration: 10 + i,
      success: i % 3 !== 0,
      calls: 1,
      tokens: 900 + i,
      input_tokens: 700 + i,
      output_tokens: 200,
      cache_read_tokens: 5000 + i,
      cache_creation_tokens: 40,
      cost_usd: ((i % 7) + 1) * 0.0125,
      loop_cost_usd: i % 5 === 0 ? 0.01 : undefined,
      files_changed: i % 4,
      exit_signal: i === 39,
      outcome: i % 3 ? 'ok' : 'failed',
      tests_status: i % 2 ? 'passing' : 'failing',
      agent: i % 2 ? 'codex' : 'gemini',
    }));
    const fast = readMetrics(writeLines(lines.map((r) => JSON.stringify(r))));
    // A nested value the summary ignores sends every line to JSON.parse.
    const parsed = readMetrics(writeLines(lines.map((r) => JSON.stringify({ ...r, meta: { x: [1] } }))));
    expect(fast.total_loops).toBe(40);
    expect(fast).toEqual(parsed);
  });

  const record = fc.record(
    {
      timestamp: fc.integer({ min: 0, max: 50 }).map((m) => `2026-11-30T04:${String(m).padStart(2, '0')}:00+00:00`),
      loop: fc.integer({ min: 1, max: 6 }),
      duration: fc.integer({ min: 0, max: 900 }),
      success: fc.boolean(),
      calls: fc.integer({ min: 0, max: 2 }),
      cost_usd: fc.integer({ min: 0, max: 5000 }).map((c) => c / 1000),
      files_changed: fc.integer({ min: 0, max: 9 }),
      outcome: fc.constantFrom('ok', 'okay', 'failed', 'timeout', 'échec ✓'),
      tests_status: fc.constantFrom('passing', 'failing'),
      exit_signal: fc.boolean(),
      tokens: fc.integer({ min: 0, max: 2000 }),
      input_tokens: fc.integer({ min: 0, max: 1000 }),
      output_tokens: fc.integer({ min: 0, max: 1000 }),
      cache_read_tokens: fc.integer({ min: 0, max: 9000 }),
      note: fc.string({ unit: 'grapheme', maxLength: 40 }),
    },
    { requiredKeys: ['timestamp', 'success'] },
  );

  it('equals the report computed straight from the lines', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 150 }), fc.integer({ min: 1, max: 12 }), (records, chartRows) => {
        const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
        expect(readMetrics(writeText(text), {}, chartRows)).toEqual(expectedFullReport(text, chartRows));
      }),
      { numRuns: 150 },
    );
  });

  it('depends on the file alone: any read size gives exactly the same report, --since included', () => {
    const entry = fc.oneof(
      { weight: 9, arbitrary: record.map((r) => JSON.stringify(r)) },
      { weight: 1, arbitrary: fc.constantFrom('garbage', '', '{"loop":') },
    );
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 150 }),
        fc.integer({ min: 1, max: 600 }),
        fc.option(fc.integer({ min: 0, max: 50 })),
        (lines, chunkBytes, sinceMinute) => {
          const path = writeLines(lines);
          const sinceMs = sinceMinute === null ? undefined : Date.UTC(2026, 10, 30, 4, sinceMinute);
          const whole = readMetrics(path, { sinceMs });
          // Byte for byte: the same sums in the same order, not merely close.
          expect(JSON.stringify(readMetrics(path, { sinceMs, chunkBytes }))).toBe(JSON.stringify(whole));
        },
      ),
      { numRuns: 200 },
    );
  });
});
