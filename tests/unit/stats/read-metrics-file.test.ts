// readMetricsFile: a file big enough for several threads is cut into ranges and joined in order.
// Run from the TypeScript sources, the worker script does not exist, so every worker fails to
// start: this proves the fallback (the range is read on the main thread) and the joining.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { summarizePartial } from '../../../lib/stats/metrics-summary.js';
import { readMetricsFile } from '../../../lib/stats/read-metrics-file.js';

const dir = mkdtempSync(join(tmpdir(), 'ralph-stats-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readMetricsFile', () => {
  it('gives the one-thread answer when its ranges fall back to this thread', async () => {
    const path = join(dir, 'metrics.jsonl');
    const lines = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ loop: (i % 40) + 1, duration: i % 90, success: i % 4 !== 0, calls: 1, cost_usd: ((i % 40) + 1) * 0.01, files_changed: i % 3 }),
    );
    writeFileSync(path, `${lines.join('\n')}\n`);
    const one = summarizePartial(await readMetricsFile(path, { detail: true, threads: 1 }));
    const four = summarizePartial(await readMetricsFile(path, { detail: true, threads: 4, minBytesPerThread: 1 }));
    expect(four).toEqual({ ...one, cost_usd: four.cost_usd, chart: four.chart });
    expect(four.cost_usd!.total).toBeCloseTo(one.cost_usd!.total, 9);
    expect(four.runs).toBe(75);
    expect(four.chart.reduce((n, r) => n + r.loops, 0)).toBe(3000);
  });
});
