// §6 row 2 — cold start of `ralph --help`, `--version` and `--status`: a new `node bin/ralph …`
// process each time, wall clock from spawn to exit, median of RUNS (after one unmeasured run
// that warms the disk cache). --status reads a Bash-written status.json in a temp project.

import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, row } from './rows.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNS = 15;
const BUDGET_MS = 150;

function timeRun(args, cwd) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [join(ROOT, 'bin/ralph'), ...args], { cwd, stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, NO_COLOR: '1' } });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`ralph ${args.join(' ')} exited ${code}`))));
  });
}

/** Bare `node -e 0` on this machine, for scale (not a budget row). */
function timeNode() {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - started));
  });
}

export async function benchColdStart() {
  const project = mkdtempSync(join(tmpdir(), 'ralph-bench-start-'));
  try {
    mkdirSync(join(project, '.ralph'), { recursive: true });
    copyFileSync(join(ROOT, 'tests/fixtures/bash-state/halted/status.json'), join(project, '.ralph/status.json'));
    const rows = [];
    const node = [];
    for (let i = 0; i < RUNS; i++) node.push(await timeNode());
    for (const flag of ['--help', '--version', '--status']) {
      await timeRun([flag], project);
      const times = [];
      for (let i = 0; i < RUNS; i++) times.push(await timeRun([flag], project));
      rows.push(row(`ralph ${flag} cold start, median of ${RUNS}`, median(times), 'ms', BUDGET_MS, 'max'));
    }
    rows[0].note = `bare \`node -e 0\` here: ${Math.round(median(node))} ms median`;
    return rows;
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}
