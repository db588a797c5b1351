// Log retention: the newest N agent logs of each kind stay, older ones go (with their _stream
// companions), and nothing else in .ralph/logs is ever touched.

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
    expect(result.deleted).toEqual([
      'claude_output_2026-11-30_03-48-34.log',
      'claude_output_2026-11-30_03-49-13.log',
      'claude_stderr_20261130_034834.log',
    ]);
    expect(readdirSync(dir).sort()).toEqual([
      ...KEEP_ALWAYS,
      'claude_output_2026-11-30_10-00-00.log',
      'claude_output_2026-12-01_00-00-01.log',
      'claude_stderr_20261130_100000.log',
      'claude_stderr_20261201_000001.log',
    ].sort());
  });

  it('orders stderr logs by time across the old compact and the current stamp style', () => {
    const dir = logsDir([
      'claude_stderr_20261130_034834.log',
      'claude_stderr_2026-11-30_10-00-00.log',
      'claude_stderr_2026-12-01_00-00-01.log',
    ]);
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

  it('does nothing when the folder does not exist', () => {
    expect(pruneAgentLogs(join(tmpdir(), 'ralph-no-such-dir-x'), 3)).toEqual({ deleted: [] });
  });
});
