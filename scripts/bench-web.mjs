#!/usr/bin/env node
// Web view benchmarks (docs/performance.md: with the page open the loop and the monitor stay
// within their CPU budgets; 20 clients get each update within a second). Run after `npm run
// build`. Prints one JSON line per measurement, the protocol scripts/bench.mjs reads.
//
// The loop with the view open is timed with the orchestration rows (bench/orchestration.mjs).
//
// The real `ralph-monitor --web` on a copy of a Bash-written mid-run `.ralph/`, with 20
// event-stream clients connected:
// - update latency: status.json replaced atomically, then the time until every client has the
//   new state (the slowest client), median and worst of 20 writes;
// - idle CPU: CPU time per wall time in five 4-second windows while nothing changes (median),
//   read from the process itself (a preloaded SIGUSR2 handler reports process.cpuUsage()).

import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, row } from './bench/rows.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLIENTS = 20;
const WRITES = 20;
const LATENCY_BUDGET_MS = 1000;
const IDLE_CPU_BUDGET_PCT = 1;
const IDLE_WINDOWS = 5;
const IDLE_WINDOW_MS = 4000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function emit(what, value, unit, budget, note) {
  process.stdout.write(`${JSON.stringify(row(what, value, unit, budget, 'max', note))}\n`);
}

function startMonitor(dir) {
  const preload = `data:text/javascript,${encodeURIComponent("process.on('SIGUSR2', () => process.stderr.write('CPU ' + JSON.stringify(process.cpuUsage()) + '\\n'));")}`;
  const child = spawn(process.execPath, ['--import', preload, join(ROOT, 'dist/cli/monitor/monitor.js'), '--web'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const cpu = [];
  let onCpu;
  child.stderr.on('data', (chunk) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line.startsWith('CPU ')) continue;
      const usage = JSON.parse(line.slice(4));
      cpu.push({ cpuUs: usage.user + usage.system, at: process.hrtime.bigint() });
      onCpu?.();
    }
  });
  const url = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /Web view: (http:\/\/\S+)/.exec(out);
      if (match) resolve(new URL(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`ralph-monitor --web exited ${code}`)));
  });
  const sampleCpu = () =>
    new Promise((resolve) => {
      onCpu = resolve;
      child.kill('SIGUSR2');
    });
  return { child, url, cpu, sampleCpu };
}

/** An event-stream client that remembers the loop count of the newest state and when it came. */
function connect(url) {
  return new Promise((resolve, reject) => {
    const client = { loop: undefined, at: 0n, req: undefined };
    client.req = request({ host: url.hostname, port: url.port, path: `/events?token=${url.searchParams.get('token')}` }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const data = buffer
            .slice(0, end)
            .split('\n')
            .find((line) => line.startsWith('data: '));
          buffer = buffer.slice(end + 2);
          if (!data) continue;
          client.loop = JSON.parse(data.slice(6)).loop.count;
          client.at = process.hrtime.bigint();
        }
      });
      resolve(client);
    });
    client.req.on('error', reject);
    client.req.end();
  });
}

const dir = mkdtempSync(join(tmpdir(), 'ralph-bench-web-'));
cpSync(join(ROOT, 'tests/fixtures/bash-state/midrun'), join(dir, '.ralph'), { recursive: true });
const monitor = startMonitor(dir);
try {
  const url = await monitor.url;
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connect(url)));
  await sleep(1000);
  const status = JSON.parse(readFileSync(join(dir, '.ralph/status.json'), 'utf8'));
  const latencies = [];
  for (let i = 0; i < WRITES; i++) {
    const loop = 1000 + i;
    writeFileSync(join(dir, '.ralph/status.json.next'), JSON.stringify({ ...status, loop_count: loop }));
    const written = process.hrtime.bigint();
    renameSync(join(dir, '.ralph/status.json.next'), join(dir, '.ralph/status.json'));
    while (clients.some((c) => c.loop !== loop)) await sleep(5);
    const slowest = clients.reduce((max, c) => (c.at > max ? c.at : max), 0n);
    latencies.push(Number(slowest - written) / 1e6);
    await sleep(300);
  }
  emit(`web view update to ${CLIENTS} clients (median of ${WRITES})`, median(latencies), 'ms', LATENCY_BUDGET_MS);
  emit(`web view update to ${CLIENTS} clients (worst of ${WRITES})`, Math.max(...latencies), 'ms', LATENCY_BUDGET_MS);
  await sleep(2000);
  for (let i = 0; i <= IDLE_WINDOWS; i++) {
    await monitor.sampleCpu();
    if (i < IDLE_WINDOWS) await sleep(IDLE_WINDOW_MS);
  }
  const percents = monitor.cpu.slice(1).map((b, i) => ((b.cpuUs - monitor.cpu[i].cpuUs) / (Number(b.at - monitor.cpu[i].at) / 1000)) * 100);
  emit(`web view idle CPU (ralph-monitor --web, ${CLIENTS} clients)`, median(percents), '%', IDLE_CPU_BUDGET_PCT);
  for (const c of clients) c.req.destroy();
} finally {
  monitor.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
