#!/usr/bin/env node
// ralph-stats benchmark (docs/performance.md: one million metric lines summarised in ≤ 2 s). Run after
// `npm run build`. Writes a 1,000,000-line .ralph/logs/metrics.jsonl of the lines the loop
// writes (every field, runs of 1–200 loops) into a temp dir, then times the real
// `bin/ralph-stats` as a user runs it — default JSON and `--format table` — wall clock from
// spawn to exit, median of 3. Prints one JSON line per measurement:
// {"what", "value", "unit", "budget", "ok"}.

import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, row } from './bench/rows.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LINES = 1_000_000;
const BUDGET_MS = 2000;
const RUNS = 3;

/** One bench row as a JSON line, the protocol scripts/bench.mjs reads. */
function emit(what, value, unit, budget) {
  process.stdout.write(`${JSON.stringify(row(what, value, unit, budget))}\n`);
}

const pad = (n) => String(n).padStart(2, '0');
const iso = (ms) => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+00:00`;
};

async function writeMetrics(path) {
  const out = createWriteStream(path);
  let at = Date.UTC(2026, 0, 1);
  let loop = 0;
  let runLength = 1;
  let cost = 0;
  let batch = [];
  for (let i = 0; i < LINES; i++) {
    if (loop >= runLength) {
      loop = 0;
      cost = 0;
      runLength = 1 + ((i * 7919) % 200);
    }
    loop++;
    const input = 900 + ((i * 31) % 4000);
    const output = 200 + ((i * 17) % 1500);
    cost += 0.002 + ((i * 13) % 100) / 5000;
    const ok = i % 11 !== 0;
    at += 30_000 + ((i * 37) % 600_000);
    batch.push(
      JSON.stringify({
        timestamp: iso(at),
        loop,
        duration: Math.round(20 + ((i * 53) % 900)),
        success: ok,
        calls: 1,
        tokens: input + output,
        cost_usd: Number(cost.toFixed(6)),
        files_changed: ok ? i % 6 : 0,
        exit_signal: false,
        tests_status: ok ? 'passing' : 'failing',
        outcome: ok ? 'ok' : 'failed',
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: 15_000 + (i % 5000),
        cache_creation_tokens: 400 + (i % 300),
      }),
    );
    if (batch.length === 10_000) {
      if (!out.write(`${batch.join('\n')}\n`)) await new Promise((resolve) => out.once('drain', resolve));
      batch = [];
    }
  }
  out.end(batch.length ? `${batch.join('\n')}\n` : '');
  await new Promise((resolve) => out.on('finish', resolve));
}

function timeStats(cwd, args) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'ralph-stats'), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`ralph-stats ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(ms);
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'ralph-bench-stats-'));
try {
  const logs = join(dir, '.ralph', 'logs');
  mkdirSync(logs, { recursive: true });
  const file = join(logs, 'metrics.jsonl');
  await writeMetrics(file);
  process.stderr.write(`metrics.jsonl: ${LINES} lines, ${(statSync(file).size / 1e6).toFixed(0)} MB\n`);
  for (const [what, args] of [
    ['ralph-stats (Bash JSON) over 1M metric lines', []],
    ['ralph-stats --format table over 1M metric lines', ['--format', 'table']],
  ]) {
    await timeStats(dir, args); // warm the page cache, as a second look at the same file would be
    const times = [];
    for (let i = 0; i < RUNS; i++) times.push(await timeStats(dir, args));
    emit(what, median(times), 'ms', BUDGET_MS);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
