// The real `bin/ralph-stats`: the Bash tool's output on its own metrics, byte for byte; the table;
// the missing-file error scripts rely on; --since, --full, --jq; and a large file giving exactly
// the report computed from its lines, with output that depends on nothing but the file.

import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectedFullReport } from '../../helpers/metrics-expectation.js';
import { runCli } from '../../helpers/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'ralph-stats-e2e-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const FIXTURES = new URL('../../fixtures/bash-state/', import.meta.url);
let n = 0;

/** A project dir whose .ralph/logs/metrics.jsonl holds `content`. */
function projectWith(content: string): string {
  const dir = join(root, `p${n++}`);
  mkdirSync(join(dir, '.ralph', 'logs'), { recursive: true });
  writeFileSync(join(dir, '.ralph', 'logs', 'metrics.jsonl'), content);
  return dir;
}

function bashProject(name: string): string {
  const dir = join(root, `p${n++}`);
  cpSync(new URL(name, FIXTURES), join(dir, '.ralph'), { recursive: true });
  return dir;
}

describe('ralph-stats', () => {
  it("prints the Bash tool's JSON for its own metrics, formatted as jq prints it", async () => {
    const r = await runCli('ralph-stats', [], { cwd: bashProject('completed') });
    expect(r.code).toBe(0);
    // The Bash run's own "Metrics summary" in its ralph.log has these numbers.
    expect(r.stdout).toBe('{\n  "total_loops": 5,\n  "successful": 5,\n  "avg_duration": 14.2,\n  "total_calls": 5\n}\n');
    expect(r.stderr).toBe('');
  });

  it('honours RALPH_DIR like ralph-stats.sh', async () => {
    const dir = bashProject('halted');
    const r = await runCli('ralph-stats', [], { cwd: root, env: { RALPH_DIR: join(dir, '.ralph') } });
    expect(JSON.parse(r.stdout)).toEqual({ total_loops: 3, successful: 2, avg_duration: 14, total_calls: 3 });
  });

  it("without metrics prints the Bash tool's JSON error on stderr and exits 1", async () => {
    const dir = join(root, `empty${n++}`);
    mkdirSync(dir);
    const r = await runCli('ralph-stats', [], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({ error: 'No metrics file found. Run ralph first to generate metrics.' });
  });

  it('--format table renders the report with a chart', async () => {
    const lines = [1, 2, 3, 4].map((loop) =>
      JSON.stringify({
        timestamp: `2026-11-30T04:0${loop}:00+00:00`,
        loop,
        duration: loop * 20,
        success: loop !== 3,
        calls: 1,
        cost_usd: loop * 0.1,
        files_changed: loop,
        input_tokens: 1000,
        output_tokens: 200,
        outcome: loop === 3 ? 'failed' : 'ok',
      }),
    );
    const r = await runCli('ralph-stats', ['--format', 'table'], { cwd: projectWith(`${lines.join('\n')}\n`) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Ralph loop statistics (.ralph/logs/metrics.jsonl)');
    expect(r.stdout).toMatch(/Loops\s+4 · 3 successful \(75\.0%\)/);
    expect(r.stdout).toMatch(/Cost\s+\$0\.4000 total · \$0\.1000 per loop/);
    expect(r.stdout).toMatch(/Outcomes\s+ok 3 · failed 1/);
    expect(r.stdout).toMatch(/^\s+4\s+█{20}\s+4\s+█+\s+\$0\.1000$/m);
  });

  it('--since keeps later loops only', async () => {
    const lines = [0, 1, 2].map((h) =>
      JSON.stringify({ timestamp: `2026-11-30T0${h}:00:00+00:00`, loop: h + 1, duration: 10 * (h + 1), success: true, calls: 1 }),
    );
    const r = await runCli('ralph-stats', ['--since', '2026-11-30T01:00:00Z'], { cwd: projectWith(`${lines.join('\n')}\n`) });
    expect(JSON.parse(r.stdout)).toEqual({ total_loops: 2, successful: 2, avg_duration: 25, total_calls: 2 });
    const bad = await runCli('ralph-stats', ['--since', 'last tuesday'], { cwd: root });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--since expects an ISO date/time');
  });

  it('--full and --jq give scripts the rest', async () => {
    const dir = bashProject('completed');
    const full = await runCli('ralph-stats', ['--full'], { cwd: dir });
    expect(JSON.parse(full.stdout)).toMatchObject({ total_loops: 5, runs: 1, duration_seconds: { p50: 14, max: 15 }, cost_usd: null });
    const jq = await runCli('ralph-stats', ['--jq', '.successful'], { cwd: dir });
    expect(jq.stdout).toBe('5\n');
    const bad = await runCli('ralph-stats', ['--jq', '.['], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("Error: Invalid --jq filter '.['");
    const both = await runCli('ralph-stats', ['--format', 'table', '--jq', '.'], { cwd: dir });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('--jq filters JSON output');
  });

  it('warns about unreadable lines on stderr and still answers', async () => {
    const r = await runCli('ralph-stats', [], { cwd: projectWith('{"duration":4,"success":true,"calls":1}\n{"duration":6,"succ\n') });
    expect(JSON.parse(r.stdout)).toEqual({ total_loops: 1, successful: 1, avg_duration: 4, total_calls: 1 });
    expect(r.stderr).toBe('Warning: skipped 1 unreadable line(s) in the metrics file\n');
  });

  it('rejects unknown flags by name', async () => {
    const r = await runCli('ralph-stats', ['--bogus'], { cwd: root });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Unknown option: --bogus');
  });

  it('reads a large file into exactly the report computed from its lines, whatever the environment says', async () => {
    // ~40 MB, where the old multi-threaded reader's output depended on its thread count.
    const line = (i: number) =>
      JSON.stringify({
        timestamp: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString().replace('.000Z', '+00:00'),
        loop: (i % 97) + 1,
        duration: (i * 7) % 300,
        success: i % 5 !== 0,
        calls: 1,
        tokens: 1000 + (i % 13),
        cost_usd: Number((((i % 97) + 1) * 0.013).toFixed(6)),
        files_changed: i % 4,
        exit_signal: i % 97 === 96,
        tests_status: i % 3 ? 'passing' : 'failing',
        outcome: i % 5 ? 'ok' : 'failed',
        input_tokens: 800,
        output_tokens: 200 + (i % 13),
        cache_read_tokens: 20_000,
        cache_creation_tokens: 300,
        padding: 'x'.repeat(60),
      });
    const chunks: string[] = [];
    for (let i = 0; i < 120_000; i++) chunks.push(line(i));
    const text = `${chunks.join('\n')}\n`;
    const dir = projectWith(text);
    const expected = expectedFullReport(text);
    expect(expected).toMatchObject({ total_loops: 120_000, runs: Math.ceil(120_000 / 97) });
    const { total_loops, successful, avg_duration, total_calls } = expected;
    const full = await runCli('ralph-stats', ['--full'], { cwd: dir });
    expect(full.code, full.stderr).toBe(0);
    expect(JSON.parse(full.stdout)).toEqual(expected);
    const bash = await runCli('ralph-stats', [], { cwd: dir });
    expect(JSON.parse(bash.stdout)).toEqual({ total_loops, successful, avg_duration, total_calls });
    // RALPH_STATS_THREADS used to pick the reader's thread count; it is now ignored.
    const tables = await Promise.all(
      ['1', '3'].map((threads) => runCli('ralph-stats', ['--format', 'table'], { cwd: dir, env: { RALPH_STATS_THREADS: threads } })),
    );
    expect(tables[0]!.code).toBe(0);
    expect(tables[0]!.stdout).toMatch(/^\s+1–10020\s/m);
    expect(tables[1]!.stdout).toBe(tables[0]!.stdout);
  }, 180_000); // four reads of 40 MB: allow for a loaded machine
});

describe('ralph-stats --help', () => {
  it('lists every flag with its description in one column, within 80 columns', async () => {
    const r = await runCli('ralph-stats', ['--help']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.every((line) => line.length <= 80)).toBe(true);
    expect(r.stdout).not.toMatch(/\[(string|boolean)\]/);
    const options = lines.slice(lines.indexOf('Options:') + 1, lines.findIndex((l) => l.startsWith('Exit codes')) - 1);
    // A flag line: the description starts two spaces after the flag and its argument; a
    // continuation line: at the same column.
    const columns = options.map((line) => (/^\s+-/.test(line) ? /^(\s+(?:-\w, )?--[\w-]+(?: \S+)?\s{2,})\S/.exec(line)?.[1]?.length : line.search(/\S/)));
    expect(new Set(columns).size).toBe(1);
    for (const flag of ['--format json|table', '--since WHEN', '--full', '--jq FILTER', '-h, --help', '--version']) expect(r.stdout).toContain(flag);
  });
});
