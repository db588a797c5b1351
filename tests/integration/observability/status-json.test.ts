// `ralph --status --json` (collectStatus / showStatus): the whole state in one object, read from
// the Bash tool's files and from a real run of ours, without changing any file.

import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { showStatus } from '../../../lib/cli/ralph/status.js';
import { collectStatus } from '../../../lib/cli/ralph/status-json.js';
import { loopProject, type LoopProject } from '../../helpers/loop-harness.js';
import { projectView } from '../../helpers/project-view.js';

const FIXTURES = new URL('../../fixtures/bash-state/', import.meta.url);
let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function bashProject(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-status-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(new URL(name, FIXTURES), join(dir, '.ralph'), { recursive: true });
  return dir;
}

function snapshotFiles(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of readdirSync(dir)) out[name] = statSync(join(dir, name)).mtimeMs;
  return out;
}

describe('collectStatus', () => {
  it("reads the Bash tool's halted state: status, breaker, rate window, session", () => {
    const dir = bashProject('halted');
    const before = snapshotFiles(join(dir, '.ralph'));
    const s = collectStatus(dir, projectView(dir));
    expect(s).toMatchObject({
      status: 'halted',
      exit_reason: 'stagnation_detected',
      last_action: 'circuit_breaker_open',
      loop_count: 3,
      running: null,
      circuit_breaker: { state: 'OPEN', reason: 'No recovery, opening circuit after 3 loops' },
      rate_window: { calls_this_hour: 3, max_calls_per_hour: 100, tokens_this_hour: 420, window: '2026113004', next_reset: '05:48:19' },
      usage_limit_wait: null,
      budgets: { max_loops: null, max_cost_usd: null, run_cost_usd: null },
    });
    expect(s.session).toMatchObject({ reset_reason: expect.any(String) });
    expect(snapshotFiles(join(dir, '.ralph'))).toEqual(before);
  });

  it("salvages the Bash tool's hand-built progress.json and reads the Claude session", () => {
    const dir = bashProject('midrun');
    const s = collectStatus(dir, projectView(dir));
    expect(s.progress).toMatchObject({ status: 'executing', elapsed_seconds: 10 });
    expect(s.claude_session).toEqual({ session_id: 'a0000000-0000-4000-8000-000000000002', timestamp: '2026-11-30T04:48:54+00:00' });
    expect(s.last_analysis).toMatchObject({ loop_number: 2 });
  });

  it('reads the usage-limit wait and says whether the lock holder is alive', () => {
    const dir = bashProject('completed');
    writeFileSync(
      join(dir, '.ralph/.usage_limit_wait'),
      JSON.stringify({ resume_at: '2026-11-30T09:00:00+00:00', resume_at_ms: 1, reason: 'limit', source: 'stated' }),
    );
    writeFileSync(join(dir, '.ralph/.ralph.lock'), JSON.stringify({ pid: process.pid, startedAt: '2026-11-30T04:00:00.000Z', host: 'h' }));
    const s = collectStatus(dir, projectView(dir));
    expect(s.usage_limit_wait).toMatchObject({ resume_at: '2026-11-30T09:00:00+00:00', source: 'stated' });
    expect(s.running).toEqual({ pid: process.pid, alive: true, started_at: '2026-11-30T04:00:00.000Z' });
  });

  it("reads each state file through the loop's reader: a file it would refuse is null, with a warning naming it", () => {
    const dir = bashProject('midrun');
    writeFileSync(join(dir, '.ralph/.response_analysis'), JSON.stringify({ loop_number: 2, analysis: { files_modified: 'many' } }));
    writeFileSync(join(dir, '.ralph/.exit_signals'), JSON.stringify({ done_signals: 'all of them' }));
    const before = snapshotFiles(join(dir, '.ralph'));
    const s = collectStatus(dir, projectView(dir));
    expect(s.last_analysis).toBeNull();
    expect(s.exit_signals).toBeNull();
    expect(s.warnings).toEqual([expect.stringContaining('.exit_signals is unreadable'), expect.stringContaining('.response_analysis is unreadable')]);
    expect(snapshotFiles(join(dir, '.ralph'))).toEqual(before);
  });

  it('gives nulls, not an error, where there is no state at all', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-status-empty-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    expect(collectStatus(dir, projectView(dir))).toMatchObject({ status: null, circuit_breaker: null, rate_window: { calls_this_hour: null }, run: null });
  });

  it('after a run of ours, carries budgets, spend and the last analysis', async () => {
    const p: LoopProject = loopProject(
      { calls: [{ writeFiles: { 'a.txt': 'a' }, costUsd: 0.25, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } }] },
      { files: { '.ralph/fix_plan.md': '- [ ] one\n- [ ] two\n' } },
    );
    cleanups.push(() => p.cleanup());
    const result = await p.run({ MAX_LOOPS: 1, MAX_COST_USD: 5 });
    expect(result.exitCode).toBe(3);
    const s = collectStatus(p.project.dir, projectView(p.project.dir));
    expect(s).toMatchObject({
      status: 'stopped',
      exit_reason: 'max_loops_reached',
      rate_window: { calls_this_hour: 1, max_calls_per_hour: 100 },
      budgets: { max_loops: 1, max_cost_usd: 5, run_loops: 1 },
      last_analysis: { loop_number: 1 },
    });
    expect((s.budgets as { run_cost_usd: number }).run_cost_usd).toBeGreaterThan(0);
  });
});

describe('showStatus', () => {
  it('--json --jq prints one value', async () => {
    let out = '';
    const code = await showStatus({ projectDir: bashProject('halted'), json: true, jq: '.circuit_breaker.state', write: (t) => (out += t) });
    expect(code).toBe(0);
    expect(out).toBe('OPEN\n');
  });

  it('without --json prints status.json like the Bash tool', async () => {
    const dir = bashProject('halted');
    let out = '';
    await showStatus({ projectDir: dir, json: false, write: (t) => (out += t) });
    expect(out.startsWith('Current Status:\n')).toBe(true);
    expect(JSON.parse(out.slice('Current Status:\n'.length))).toEqual(JSON.parse(readFileSync(join(dir, '.ralph/status.json'), 'utf8')));
  });
});
