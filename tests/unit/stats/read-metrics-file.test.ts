// readMetricsFile: a file big enough for several threads is cut into ranges and joined in order.
// Run from the TypeScript sources, the worker script does not exist, so every worker fails to
// start: this proves the fallback (the range is read on the main thread) and the joining, against
// a report computed from the lines without lib/stats.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { summarizePartial } from '../../../lib/stats/metrics-summary.js';
import { readMetricsFile } from '../../../lib/stats/read-metrics-file.js';
import { expectedFullReport } from '../../helpers/metrics-expectation.js';

const dir = mkdtempSync(join(tmpdir(), 'ralph-stats-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readMetricsFile', () => {
  it('gives the one-thread answer when its ranges fall back to this thread', async () => {
    const path = join(dir, 'metrics.jsonl');
    const lines = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ loop: (i % 40) + 1, duration: i % 90, success: i % 4 !== 0, calls: 1, cost_usd: ((i % 40) + 1) * 0.01, files_changed: i % 3 }),
    );
    const text = `${lines.join('\n')}\n`;
    writeFileSync(path, text);
    // The per-agent breakdown is ralph-stats' own pass over the file (stats-report.ts), not the summary's.
    const { by_agent: _byAgent, ...expected } = expectedFullReport(text);
    expect(expected).toMatchObject({ total_loops: 3000, runs: 75 });
    for (const threads of [1, 2, 4]) {
      const summary = summarizePartial(await readMetricsFile(path, { detail: true, threads, minBytesPerThread: 1 }));
      expect(summary, `${threads} thread(s)`).toEqual(expected);
    }
  });
});
