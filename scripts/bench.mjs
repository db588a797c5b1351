#!/usr/bin/env node
// `npm run bench`: measures every budget of docs/performance.md on this machine and prints, for each,
// what was measured, the budget and the verdict (`--json`: the rows as JSON). Run after
// `npm run build` (the npm script does). Sections live in scripts/bench/; the monitor and
// ralph-stats rows come from scripts/bench-monitor.mjs and scripts/bench-stats.mjs, which print
// JSON lines {what, value, unit, budget, ok}. `--quick`: fewer loops (100) and cold-start runs,
// for a fast look; the default measures the rows as docs/performance.md states them. `--only NAME`
// (repeatable: orchestration, plan-growth, content-snapshot, cold-start, analysis, monitor, web, stats, parallel) runs just those sections.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchAnalysis } from './bench/analysis.mjs';
import { benchColdStart } from './bench/cold-start.mjs';
import { fileReplaceCost, memoryAfterPause } from './bench/machine.mjs';
import { benchContentSnapshot, benchLargeTreeLoop } from './bench/content-snapshot.mjs';
import { benchOrchestration } from './bench/orchestration.mjs';
import { benchParallel } from './bench/parallel.mjs';
import { benchPlanGrowth } from './bench/plan-growth.mjs';
import { notMeasured, row } from './bench/rows.mjs';

// The bench's projects are throw-away folders it makes itself: run as root (a CI box, a
// container), ralph may run its agent there as root, as ralph refuses to do by default.
if (process.getuid?.() === 0) process.env.ALLOW_ROOT_AGENT ??= 'true';

const json = process.argv.includes('--json');
const quick = process.argv.includes('--quick');
const only = process.argv.flatMap((arg, i, all) => (arg === '--only' && all[i + 1] ? [all[i + 1]] : []));
const SECTIONS = ['orchestration', 'plan-growth', 'content-snapshot', 'cold-start', 'analysis', 'monitor', 'web', 'stats', 'parallel'];
const unknown = only.filter((name) => !SECTIONS.includes(name));
if (unknown.length) {
  process.stderr.write(`bench: unknown --only section ${unknown.join(', ')} (one of: ${SECTIONS.join(', ')})\n`);
  process.exit(1);
}
const wanted = (name) => only.length === 0 || only.includes(name);
const progress = (text) => {
  if (!json) process.stderr.write(`${text}\n`);
};

/** Runs a helper bench script that prints JSON-line rows; a missing script is a "not measured" row. */
function runHelper(file, label) {
  const path = fileURLToPath(new URL(file, import.meta.url));
  if (!existsSync(path)) return Promise.resolve([notMeasured(label, `not measured (${label.split(' ')[0]} bench missing: ${file})`)]);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => {
      const rows = out
        .split('\n')
        .filter((line) => line.trim().startsWith('{'))
        .map((line) => {
          const r = JSON.parse(line);
          return row(r.what, r.value, r.unit, r.budget, r.compare === 'min' ? 'min' : 'max', r.note);
        });
      if (code !== 0 || rows.length === 0) rows.push(notMeasured(label, `not measured (${file} exited ${code}: ${err.trim().split('\n').pop() ?? ''})`));
      resolve(rows);
    });
  });
}

async function section(name, run) {
  progress(`… ${name}`);
  settleDisk();
  const started = performance.now();
  try {
    const rows = await run();
    progress(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return rows;
  } catch (error) {
    return [notMeasured(name, `failed: ${error instanceof Error ? error.message : String(error)}`)];
  }
}

/**
 * Writes back what earlier work left dirty in the page cache (`sync`), so that a section is not
 * timed on a disk still carrying the last one's files: on this VM's ext4 (no journal) a small-file
 * replace cost 520 µs of CPU while freed inodes sat in dirty blocks, and 83 µs once they were
 * written back (five measurements in a row, then `sync`, then one).
 */
function settleDisk() {
  spawnSync('sync', [], { stdio: 'ignore' });
}

const machine = `${cpus().length} CPU (${cpus()[0]?.model.trim() ?? 'unknown'}), node ${process.version}, load ${loadavg()
  .map((l) => l.toFixed(2))
  .join(' ')}${quick ? ' (--quick)' : ''}`;
progress(`ralph benchmarks (docs/performance.md) on ${machine}`);
const memory = await memoryAfterPause({ quick });
const memoryNote = `a 6 MB walk of small objects takes ${memory.warmMs.toFixed(1)} ms straight after the last one, ${memory.afterPauseMs.toFixed(1)} ms after a 2 s pause`;
progress(`  ${memoryNote}`);
const replaceAtStart = fileReplaceCost();
progress(`  a small file replaced (temp file renamed over it) costs ${replaceAtStart.toFixed(0)} µs of CPU (a loop replaces about 18)`);
const rows = [
  ...(wanted('orchestration') ? await section('orchestration per loop', () => benchOrchestration({ quick })) : []),
  ...(wanted('plan-growth') ? await section('per-loop cost as the plan and the run grow', () => benchPlanGrowth({ quick })) : []),
  ...(wanted('content-snapshot') ? await section('a loop on a large tree', () => benchLargeTreeLoop({ quick })) : []),
  ...(wanted('content-snapshot') ? await section('content snapshot', () => benchContentSnapshot({ quick })) : []),
  ...(wanted('cold-start') ? await section('cold start', () => benchColdStart({ quick })) : []),
  ...(wanted('analysis') ? await section('analysis', benchAnalysis) : []),
  ...(wanted('monitor') ? await section('monitor', () => runHelper('./bench-monitor.mjs', 'monitor frame render and idle CPU')) : []),
  ...(wanted('web') ? await section('web view', () => runHelper('./bench-web.mjs', 'web view updates and idle CPU')) : []),
  ...(wanted('stats') ? await section('ralph-stats', () => runHelper('./bench-stats.mjs', 'ralph-stats over 1M metric lines')) : []),
  ...(wanted('parallel') ? await section('parallel loops', benchParallel) : []),
];

const replaceAtEnd = fileReplaceCost();
const diskNote = `a small file replaced costs ${replaceAtStart.toFixed(0)} µs of CPU at the start, ${replaceAtEnd.toFixed(0)} µs at the end (70–90 on this VM's ext4 when quiet, 300 straight after npm test; a loop replaces about 18)`;

if (json) {
  process.stdout.write(`${JSON.stringify({ machine, memory, replaceUs: { atStart: replaceAtStart, atEnd: replaceAtEnd }, rows }, null, 2)}\n`);
} else {
  process.stdout.write(formatTable(rows));
}

function formatTable(list) {
  const measured = (r) => (r.value === null ? '—' : `${r.value} ${r.unit}`);
  const budget = (r) => (r.budget === null ? '—' : `${r.compare === 'min' ? '≥' : '≤'} ${r.budget} ${r.unit}`);
  const verdict = (r) => (r.value === null ? 'not measured' : r.ok === null ? 'no budget' : r.ok ? 'ok' : 'OVER BUDGET');
  const cells = list.map((r) => [r.what, measured(r), budget(r), verdict(r)]);
  const header = ['what', 'measured', 'budget', 'verdict'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) => `| ${c.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
  const notes = list.filter((r) => r.note).map((r) => `- ${r.what}: ${r.note}`);
  return [
    '',
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...cells.map(line),
    '',
    `Machine: ${machine}; ${memoryNote}; ${diskNote}`,
    ...(notes.length ? ['Notes:', ...notes] : []),
    '',
  ].join('\n');
}
