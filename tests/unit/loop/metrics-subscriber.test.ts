// metrics.jsonl as a subscriber: each 'iteration:measured' is one line in the project's file and
// in the shared account's; a link planted in place of the file costs the line, not the run.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopEvents } from '../../../lib/loop/events.js';
import { subscribeMetrics } from '../../../lib/loop/metrics-subscriber.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import type { MetricsLine } from '../../../lib/state/schemas.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function project() {
  dir = mkdtempSync(join(tmpdir(), 'ralph-metrics-sub-'));
  const paths = ralphPaths(dir);
  mkdirSync(join(dir, '.ralph', 'logs'), { recursive: true });
  return paths;
}

const line = (loop: number): MetricsLine => ({
  timestamp: '2026-11-30T03:10:00+00:00',
  loop,
  duration: 4,
  success: true,
  calls: 1,
  outcome: 'ok',
  verification: null,
});

describe('subscribeMetrics', () => {
  it('appends each measured loop to metrics.jsonl and to the shared account', () => {
    const paths = project();
    const events = new LoopEvents();
    const shared: unknown[] = [];
    subscribeMetrics(events, { paths, logger: { warn: () => undefined }, account: { recordMetrics: (l) => shared.push(l) } });
    events.emit('iteration:measured', { loop: 1, line: line(1) });
    events.emit('iteration:measured', { loop: 2, line: line(2) });
    const written = readFileSync(paths.metrics, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(written).toEqual([line(1), line(2)]);
    expect(shared).toEqual([line(1), line(2)]);
  });

  it('warns instead of following a link planted at metrics.jsonl', () => {
    const paths = project();
    const target = join(dir!, 'elsewhere.jsonl');
    writeFileSync(target, '');
    symlinkSync(target, paths.metrics);
    const warnings: string[] = [];
    const events = new LoopEvents();
    subscribeMetrics(events, { paths, logger: { warn: (m) => warnings.push(m) } });
    events.emit('iteration:measured', { loop: 1, line: line(1) });
    expect(readFileSync(target, 'utf8')).toBe('');
    expect(warnings).toHaveLength(1);
  });
});
