// Start-up budget rows (docs/performance.md) — `ralph --help`, `--version`, `--status` within node's own start + 15 ms;
// `ralph-monitor --once` within + 40 ms; `ralph --circuit-status`, `ralph --config` within + 60 ms. Each run is
// a new `node bin/…` process in a temp project holding a copy of a Bash-written mid-run
// `.ralph/`. The machine may be loaded, so what is compared is CPU time (user + sys of the
// process, from bash's `times`, which reads getrusage of the waited child); wall time is given
// alongside. Node's own start is `node -e 0` measured the same way. Runs are interleaved (one
// of each command per round, after one unmeasured round that warms the disk cache) and the
// medians compared.

import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, row } from './rows.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FAST_BUDGET_MS = 15;
const MONITOR_BUDGET_MS = 40;
const READ_ONLY_BUDGET_MS = 60;

const COMMANDS = [
  { name: 'ralph --status', argv: ['bin/ralph', '--status'], budget: FAST_BUDGET_MS },
  { name: 'ralph --version', argv: ['bin/ralph', '--version'], budget: FAST_BUDGET_MS },
  { name: 'ralph --help', argv: ['bin/ralph', '--help'], budget: FAST_BUDGET_MS },
  { name: 'ralph-monitor --once', argv: ['bin/ralph-monitor', '--once'], budget: MONITOR_BUDGET_MS },
  { name: 'ralph --circuit-status', argv: ['bin/ralph', '--circuit-status'], budget: READ_ONLY_BUDGET_MS },
  { name: 'ralph --config', argv: ['bin/ralph', '--config'], budget: READ_ONLY_BUDGET_MS },
];

/** CPU (user + sys) and wall ms of one `node …` run, via bash's `times` (children's rusage). */
function timeRun(args, cwd) {
  return new Promise((resolve, reject) => {
    const script = '"$@" >/dev/null 2>&1; code=$?; times; exit $code';
    const started = performance.now();
    const child = spawn('bash', ['-c', script, 'bench', process.execPath, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, NO_COLOR: '1', COLUMNS: '100' },
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = performance.now() - started;
      // `times`: the shell's own user/sys, then its children's, as "0m0.061s 0m0.008s".
      const line = out.trim().split('\n').pop() ?? '';
      const seconds = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}`));
      else if (seconds.length !== 2) reject(new Error(`cannot read CPU time from bash times: ${JSON.stringify(out)}`));
      else resolve({ cpu: (seconds[0] + seconds[1]) * 1000, wall });
    });
  });
}

export async function benchColdStart({ quick = false } = {}) {
  const runs = quick ? 5 : 11;
  const project = mkdtempSync(join(tmpdir(), 'ralph-bench-start-'));
  try {
    cpSync(join(ROOT, 'tests/fixtures/bash-state/midrun'), join(project, '.ralph'), { recursive: true });
    const all = [{ name: 'node -e 0', args: ['-e', '0'] }, ...COMMANDS.map((c) => ({ ...c, args: c.argv.map((a, i) => (i === 0 ? join(ROOT, a) : a)) }))];
    const times = new Map(all.map((c) => [c.name, []]));
    for (let round = 0; round <= runs; round++) {
      for (const c of all) {
        const t = await timeRun(c.args, project);
        if (round > 0) times.get(c.name).push(t);
      }
    }
    const cpuOf = (name) => median(times.get(name).map((t) => t.cpu));
    const wallOf = (name) => median(times.get(name).map((t) => t.wall));
    const node = cpuOf('node -e 0');
    return COMMANDS.map((c) =>
      row(
        `${c.name} cold start − node's own start, CPU, median of ${runs}`,
        cpuOf(c.name) - node,
        'ms',
        c.budget,
        'max',
        `CPU ${cpuOf(c.name).toFixed(0)} ms vs \`node -e 0\` ${node.toFixed(0)} ms (user+sys); wall ${wallOf(c.name).toFixed(0)} ms vs ${wallOf('node -e 0').toFixed(0)} ms`,
      ),
    );
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}
