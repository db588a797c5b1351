#!/usr/bin/env node
// Monitor benchmarks (docs/performance.md: a frame renders in ≤ 10 ms; the dashboard idles at ≤ 1 %
// CPU). Run after `npm run build`. Prints one JSON line per measurement:
// {"what", "value", "unit", "budget", "ok"}.
//
// - frame render: median renderFrame() time for a busy, realistic snapshot (every section
//   filled, long log tails, colour on) at 120x50;
// - frame with state reload: median time to re-read every state file (all changed) and render;
// - idle CPU: the real `ralph-monitor` (default 2 s refresh) on a copy of a Bash-written
//   mid-run `.ralph/`: CPU time per wall time in five 4-second windows after start-up (median),
//   read from the process itself (a preloaded SIGUSR2 handler reports process.cpuUsage()), so
//   it works on any OS.

import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, row } from './bench/rows.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dist = (path) => new URL(`../dist/${path}`, import.meta.url).href;
const { assembleSnapshot } = await import(dist('monitor/assemble-snapshot.js'));
const { renderFrame } = await import(dist('monitor/render.js'));
const { createSnapshotLoader } = await import(dist('monitor/snapshot-loader.js'));
const { loadViewConfig } = await import(dist('config/view-config.js'));

const RENDER_BUDGET_MS = 10;
const IDLE_CPU_BUDGET_PCT = 1;
const IDLE_WINDOWS = 5;
const IDLE_WINDOW_MS = 4000;

/** One bench row as a JSON line, the protocol scripts/bench.mjs reads. */
function emit(what, value, unit, budget) {
  process.stdout.write(`${JSON.stringify(row(what, value, unit, budget))}\n`);
}

function busyTexts() {
  const now = new Date();
  const stamp = (d) => d.toISOString().replace('T', ' ').slice(0, 19);
  return {
    status: JSON.stringify({
      timestamp: now.toISOString(),
      loop_count: 42,
      calls_made_this_hour: 37,
      max_calls_per_hour: 100,
      tokens_used_this_hour: 812_345,
      max_tokens_per_hour: 1_000_000,
      last_action: 'executing',
      status: 'running',
      exit_reason: '',
      sandbox: { provider: 'none' },
      next_reset: '11:00:00',
      max_loops: 100,
      run_tokens: 5_432_100,
      run_cost_usd: 12.3456,
      max_cost_usd: 20,
    }),
    progress: JSON.stringify({ status: 'executing', indicator: '⠹', elapsed_seconds: 312, timestamp: stamp(now), last_output: 'Edit' }),
    breaker: JSON.stringify({
      state: 'HALF_OPEN',
      consecutive_no_progress: 2,
      consecutive_same_error: 1,
      consecutive_permission_denials: 0,
      last_progress_loop: 40,
      total_opens: 3,
      reason: 'Monitoring: 2 loops without progress',
    }),
    callCount: '37',
    tokenCount: '812345',
    analysis: JSON.stringify({
      loop_number: 41,
      analysis: {
        exit_signal: false,
        files_modified: 4,
        confidence_score: 80,
        work_summary: 'Refactored the parser, added tests for edge cases, and updated the README section on configuration. '.repeat(3),
        permission_denial_count: 1,
      },
    }),
    fixPlan: Array.from({ length: 300 }, (_, i) => `- [${i % 3 === 0 ? ' ' : 'x'}] task number ${i} with a description`).join('\n'),
    usageWait: JSON.stringify({
      resume_at: new Date(now.getTime() + 3_723_000).toISOString(),
      reason: 'You have hit your 5-hour limit',
      source: 'rate_limit_event',
    }),
    ralphLogTail: Array.from(
      { length: 200 },
      (_, i) =>
        `[2026-11-30 10:15:${String(i % 60).padStart(2, '0')}] [${['INFO', 'WARN', 'LOOP', 'SUCCESS'][i % 4]}] ✅ step ${i}: a log line of typical length with some detail`,
    ).join('\n'),
    liveLogTail: Array.from({ length: 200 }, (_, i) => (i % 7 === 0 ? `⚡ [Edit] src/file${i}.ts` : `streamed text line ${i} 日本語 and more words here`)).join(
      '\n',
    ),
  };
}

// The views read a project with its effective settings; the bench's projects have no .ralphrc.
const viewOf = (projectDir) => loadViewConfig({ projectDir, homeDir: join(projectDir, '.no-home'), env: {} });

function benchRender() {
  const { optionalSections, usageWait } = viewOf('/home/user/project');
  const snapshot = assembleSnapshot(busyTexts(), {
    projectDir: '/home/user/project',
    now: Date.now(),
    ralphDirFound: true,
    readWarnings: ['cannot read queue.json (EACCES)'],
    optionalSections,
    usageWait,
    planFile: 'fix_plan.md',
  });
  const options = { columns: 120, rows: 50, color: true, now: Date.now() };
  for (let i = 0; i < 200; i++) renderFrame(snapshot, options);
  const times = [];
  for (let i = 0; i < 2000; i++) {
    const t0 = process.hrtime.bigint();
    renderFrame(snapshot, { ...options, now: options.now + i * 1000 });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  emit('monitor frame render (median)', median(times), 'ms', RENDER_BUDGET_MS);
}

function busyProject() {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-bench-monitor-'));
  cpSync(join(ROOT, 'tests/fixtures/bash-state/midrun'), join(dir, '.ralph'), { recursive: true });
  const texts = busyTexts();
  writeFileSync(join(dir, '.ralph/status.json'), texts.status);
  writeFileSync(join(dir, '.ralph/progress.json'), texts.progress);
  writeFileSync(join(dir, '.ralph/.response_analysis'), texts.analysis);
  writeFileSync(join(dir, '.ralph/fix_plan.md'), texts.fixPlan);
  writeFileSync(join(dir, '.ralph/logs/ralph.log'), `${texts.ralphLogTail}\n`.repeat(20));
  writeFileSync(join(dir, '.ralph/live.log'), `${texts.liveLogTail}\n`);
  return dir;
}

async function benchReloadAndRender(dir) {
  const loader = createSnapshotLoader({ projectDir: dir, now: () => Date.now(), view: viewOf(dir) });
  const files = ['status.json', 'progress.json', '.response_analysis', 'fix_plan.md', 'logs/ralph.log', 'live.log', '.circuit_breaker_state', '.call_count'];
  const times = [];
  for (let i = 0; i < 300; i++) {
    // Touch every file so each one is read again.
    const when = new Date(Date.now() + i * 1000);
    for (const f of files) utimesSync(join(dir, '.ralph', f), when, when);
    const t0 = process.hrtime.bigint();
    const { snapshot } = await loader.load();
    renderFrame(snapshot, { columns: 120, rows: 50, color: true, now: Date.now() });
    if (i >= 20) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  emit('monitor frame with full state reload (median)', median(times), 'ms', RENDER_BUDGET_MS);
}

async function benchIdleCpu(dir) {
  const preload = `data:text/javascript,${encodeURIComponent("process.on('SIGUSR2', () => process.stderr.write('CPU ' + JSON.stringify(process.cpuUsage()) + '\\n'));")}`;
  const child = spawn(process.execPath, ['--import', preload, join(ROOT, 'dist/cli/monitor/monitor.js')], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.resume();
  const samples = [];
  let waiting;
  let failed;
  let stderr = '';
  child.on('exit', (code, signal) => {
    if (signal === 'SIGTERM') return;
    failed = new Error(`ralph-monitor exited early (${code ?? signal}): ${stderr.trim()}`);
    waiting?.();
  });
  child.stderr.on('data', (chunk) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line.startsWith('CPU ')) {
        stderr += line;
        continue;
      }
      const usage = JSON.parse(line.slice(4));
      samples.push({ cpuUs: usage.user + usage.system, at: process.hrtime.bigint() });
      waiting?.();
    }
  });
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const sample = async () => {
    if (failed) throw failed;
    await new Promise((resolve) => {
      waiting = resolve;
      child.kill('SIGUSR2');
    });
    if (failed) throw failed;
  };
  await sleep(4000); // start-up and the first frames are not idle
  for (let i = 0; i <= IDLE_WINDOWS; i++) {
    await sample();
    if (i < IDLE_WINDOWS) await sleep(IDLE_WINDOW_MS);
  }
  child.kill('SIGTERM');
  // The median of several windows, so one garbage collection or a busy neighbour on a shared
  // machine does not decide the result.
  const percents = samples.slice(1).map((b, i) => {
    const a = samples[i];
    return ((b.cpuUs - a.cpuUs) / (Number(b.at - a.at) / 1000)) * 100;
  });
  emit('monitor idle CPU (ralph-monitor, 2 s refresh)', median(percents), '%', IDLE_CPU_BUDGET_PCT);
}

benchRender();
const dir = busyProject();
try {
  await benchReloadAndRender(dir);
  await benchIdleCpu(dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
