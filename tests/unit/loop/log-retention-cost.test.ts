// The pruning after each loop must not cost more as the logs it keeps pile up: with the sizes
// it measured kept from one prune to the next (as the loop keeps them), each prune measures only
// the logs it has not met before, however many it keeps; the byte cap still holds. (No module
// mock counts the measurements: the suite's files share their worker's modules. A log grown
// after its first prune shows what was measured, and when.)

import { appendFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pruneAgentLogs, type LogMemory } from '../../../lib/loop/log-retention.js';

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

describe('pruning the agent logs after each loop', () => {
  it('measures each log once: a log already met is not measured again at the next prunes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-logs-cost-'));
    dirs.push(dir);
    const memory: LogMemory = new Map();
    for (let call = 1; call <= 150; call++) {
      writeFileSync(join(dir, logName(call)), 'x'.repeat(100));
      pruneAgentLogs(dir, 200, 1024 * 1024, memory);
    }
    expect(readdirSync(dir)).toHaveLength(150);
    // A log of a finished call grows past the cap (ralph never writes one again; only this test
    // does): the next prunes go by the size measured when they first met it, and keep every log.
    appendFileSync(join(dir, logName(1)), 'x'.repeat(2 * 1024 * 1024));
    for (let call = 151; call <= 155; call++) {
      writeFileSync(join(dir, logName(call)), 'x'.repeat(100));
      expect(pruneAgentLogs(dir, 200, 1024 * 1024, memory).deleted).toEqual([]);
    }
    expect(readdirSync(dir)).toHaveLength(155);
    // A prune that has not met the logs measures each: the grown log is over the cap, and goes.
    expect(pruneAgentLogs(dir, 200, 1024 * 1024, new Map()).deleted).toEqual([logName(1)]);
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
