// The pruning after each loop must not cost more as the logs it keeps pile up: with the sizes
// it measured kept from one prune to the next (as the loop keeps them), each prune measures only
// the logs it has not met before, however many it keeps; the byte cap still holds.

import * as fs from 'node:fs';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pruneAgentLogs, type LogMemory } from '../../../lib/loop/log-retention.js';

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return { ...actual, lstatSync: vi.fn(actual.lstatSync), statSync: vi.fn(actual.statSync) };
});

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** The output log of call `n`: one per second, in time order. */
function logName(n: number): string {
  const at = new Date(Date.UTC(2026, 10, 30, 3, 0, n));
  const stamp = at.toISOString().slice(0, 19).replace('T', '_').replace(/:/g, '-');
  return `claude_output_${stamp}.log`;
}

/** Files measured (lstat or stat) during `work`, in the logs folder. */
function measuredDuring(dir: string, work: () => void): number {
  const lstat = vi.mocked(fs.lstatSync);
  const stat = vi.mocked(fs.statSync);
  lstat.mockClear();
  stat.mockClear();
  work();
  const inDir = (calls: unknown[][]) => calls.filter(([path]) => String(path).startsWith(dir)).length;
  return inDir(lstat.mock.calls) + inDir(stat.mock.calls);
}

describe('pruning the agent logs after each loop', () => {
  it('measures each log once: a prune with 150 logs kept measures no more than one with 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-logs-cost-'));
    dirs.push(dir);
    const memory: LogMemory = new Map();
    const measured: number[] = [];
    for (let call = 1; call <= 150; call++) {
      writeFileSync(join(dir, logName(call)), 'x'.repeat(100));
      measured.push(measuredDuring(dir, () => pruneAgentLogs(dir, 200, 1024 * 1024, memory)));
    }
    expect(readdirSync(dir)).toHaveLength(150);
    // The call's own new log, and nothing else, whether 1 or 149 older logs are kept.
    expect(Math.max(...measured)).toBe(1);
  });

  it('still holds the byte cap, counting the sizes it remembers, and forgets the logs that went', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-logs-cost-'));
    dirs.push(dir);
    const memory: LogMemory = new Map();
    for (let call = 1; call <= 40; call++) {
      writeFileSync(join(dir, logName(call)), 'x'.repeat(100));
      pruneAgentLogs(dir, 200, 1000, memory);
    }
    // Ten logs of 100 bytes fit in 1000: the newest ten stay.
    expect(readdirSync(dir).sort()).toEqual(Array.from({ length: 10 }, (_, i) => logName(31 + i)).sort());
    expect([...memory.keys()].sort()).toEqual(readdirSync(dir).sort());
  });
});
