// Log retention: the newest N agent logs of each kind stay, older ones go (with their _stream
// companions), the oldest also go while all of them hold more than the byte cap (the last call's
// logs always stay), and nothing else in .ralph/logs is ever touched.

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pruneAgentLogs } from '../../../lib/loop/log-retention.js';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function logsDir(names: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-logs-'));
  dirs.push(dir);
  for (const name of names) writeFileSync(join(dir, name), name);
  return dir;
}

const KEEP_ALWAYS = ['ralph.log', 'ralph.log.1', 'metrics.jsonl', 'notes.txt'];

describe('pruneAgentLogs', () => {
  it('keeps the newest N output and stderr logs and nothing else is touched', () => {
    const dir = logsDir([
      ...KEEP_ALWAYS,
      'claude_output_2026-11-30_03-48-34.log',
      'claude_output_2026-11-30_03-49-13.log',
      'claude_output_2026-11-30_10-00-00.log',
      'claude_output_2026-12-01_00-00-01.log',
      'claude_stderr_20261130_034834.log',
      'claude_stderr_20261201_000001.log',
      'claude_stderr_20261130_100000.log',
    ]);
    const result = pruneAgentLogs(dir, 2);
    expect(result.deleted).toEqual(['claude_output_2026-11-30_03-48-34.log', 'claude_output_2026-11-30_03-49-13.log', 'claude_stderr_20261130_034834.log']);
    expect(readdirSync(dir).sort()).toEqual(
      [
        ...KEEP_ALWAYS,
        'claude_output_2026-11-30_10-00-00.log',
        'claude_output_2026-12-01_00-00-01.log',
        'claude_stderr_20261130_100000.log',
        'claude_stderr_20261201_000001.log',
      ].sort(),
    );
  });

  it('orders stderr logs by time across the old compact and the current stamp style', () => {
    const dir = logsDir(['claude_stderr_20261130_034834.log', 'claude_stderr_2026-11-30_10-00-00.log', 'claude_stderr_2026-12-01_00-00-01.log']);
    expect(pruneAgentLogs(dir, 2).deleted).toEqual(['claude_stderr_20261130_034834.log']);
  });

  it('orders same-second logs by their counter (_2 before _10) and drops a _stream log with its run', () => {
    const dir = logsDir([
      'claude_output_2026-11-30_03-48-34.log',
      'claude_output_2026-11-30_03-48-34_stream.log',
      'claude_output_2026-11-30_03-48-35.log',
      'claude_output_2026-11-30_03-48-35_2.log',
      'claude_output_2026-11-30_03-48-35_10.log',
    ]);
    expect(pruneAgentLogs(dir, 2).deleted).toEqual([
      'claude_output_2026-11-30_03-48-34.log',
      'claude_output_2026-11-30_03-48-34_stream.log',
      'claude_output_2026-11-30_03-48-35.log',
    ]);
  });

  it('keeps everything when retention is 0 or there are fewer logs', () => {
    const names = ['claude_output_2026-11-30_03-48-34.log', 'claude_output_2026-11-30_03-49-13.log'];
    expect(pruneAgentLogs(logsDir(names), 0).deleted).toEqual([]);
    expect(pruneAgentLogs(logsDir(names), 5).deleted).toEqual([]);
  });

  it('a byte cap: the oldest logs of both kinds go while all of them hold more than the cap', () => {
    const dir = logsDir([...KEEP_ALWAYS]);
    const sizes: Record<string, number> = {
      'claude_output_2026-11-30_01-00-00.log': 400,
      'claude_stderr_2026-11-30_01-00-00.log': 50,
      'claude_output_2026-11-30_02-00-00.log': 300,
      'claude_output_2026-11-30_02-00-00_stream.log': 300,
      'claude_stderr_2026-11-30_02-00-00.log': 50,
      'claude_output_2026-11-30_03-00-00.log': 300,
      'claude_stderr_2026-11-30_03-00-00.log': 50,
      'claude_output_2026-11-30_04-00-00.log': 100,
      'claude_stderr_20261130_040000.log': 50,
    };
    for (const [name, size] of Object.entries(sizes)) writeFileSync(join(dir, name), 'x'.repeat(size));
    writeFileSync(join(dir, 'ralph.log'), 'x'.repeat(5000));
    // 150 (the last call's) + 350 (03:00) fit in 600; 02:00's 650 does not: it and 01:00 go.
    expect(pruneAgentLogs(dir, 200, 600).deleted).toEqual([
      'claude_output_2026-11-30_01-00-00.log',
      'claude_output_2026-11-30_02-00-00.log',
      'claude_output_2026-11-30_02-00-00_stream.log',
      'claude_stderr_2026-11-30_01-00-00.log',
      'claude_stderr_2026-11-30_02-00-00.log',
    ]);
    expect(readdirSync(dir).sort()).toEqual(
      [
        ...KEEP_ALWAYS,
        'claude_output_2026-11-30_03-00-00.log',
        'claude_output_2026-11-30_04-00-00.log',
        'claude_stderr_2026-11-30_03-00-00.log',
        'claude_stderr_20261130_040000.log',
      ].sort(),
    );
  });

  it("a byte cap smaller than the last call's logs keeps them, and only them; 0 is no byte cap", () => {
    const names = ['claude_output_2026-11-30_03-48-34.log', 'claude_output_2026-11-30_03-49-13.log', 'claude_stderr_2026-11-30_03-49-13.log'];
    const dir = logsDir(names);
    expect(pruneAgentLogs(dir, 0, 0).deleted).toEqual([]);
    expect(pruneAgentLogs(dir, 0, 1).deleted).toEqual(['claude_output_2026-11-30_03-48-34.log']);
    expect(readdirSync(dir).sort()).toEqual(names.slice(1));
  });

  it('does nothing when the folder does not exist', () => {
    expect(pruneAgentLogs(join(tmpdir(), 'ralph-no-such-dir-x'), 3)).toEqual({ deleted: [] });
  });
});
