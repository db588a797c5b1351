// Start-up budget rows (docs/performance.md) — `ralph --help`, `--version`, `--status` within node's own start + 15 ms;
// `ralph-monitor --once` within + 40 ms; `ralph --circuit-status`, `ralph --config` within + 60 ms. Each run is
// a new `node bin/…` process in a temp project holding a copy of a Bash-written mid-run
// `.ralph/`. The machine may be loaded, so what is compared is CPU time (user + sys of the
// process, from bash's `times`, which reads getrusage of the waited child); wall time is given
// alongside. Node's own start is `node -e 0` measured the same way. Runs are interleaved (one
// of each command per round, after one unmeasured round that warms the disk cache) and the
// medians compared.
//
// One row more times a whole run: `ralph --max-loops 1` on a fresh copy of a tiny git project with
// an instant fake agent (one-loop-run.mjs): ralph's start (the bundle, the configuration, the
// checks, the git baseline), its one loop and its closing, with the processes it starts (git,
// the setuid sweep as root, the agent's few lines of sh) as bash's `times` counts them. It has
// no budget of its own (a run is no read-only command): it is measured for the record. scripts/bench/loop-probe.mjs, loaded into it, notes
// ralph's own CPU when it spawns the agent: the part of the run before its first agent call.

import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshProject, prepareOneLoopRun } from './one-loop-run.mjs';
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

/**
 * CPU (user + sys) and wall ms of one `node …` run, via bash's `times` (children's rusage).
 * `env`: the run's environment instead of this one's; `okCodes`: the exit codes of a good run.
 */
function timeRun(args, cwd, { env = process.env, okCodes = [0] } = {}) {
  return new Promise((resolve, reject) => {
    const script = '"$@" >/dev/null 2>&1; code=$?; times; exit $code';
    const started = performance.now();
    const child = spawn('bash', ['-c', script, 'bench', process.execPath, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...env, NO_COLOR: '1', COLUMNS: '100' },
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = performance.now() - started;
      // `times`: the shell's own user/sys, then its children's, as "0m0.061s 0m0.008s".
      const line = out.trim().split('\n').pop() ?? '';
      const seconds = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
      if (!okCodes.includes(code)) reject(new Error(`${args.join(' ')} exited ${code}`));
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
    const oneLoop = oneLoopRunner(join(project, 'one-loop'));
    const all = [{ name: 'node -e 0', args: ['-e', '0'] }, ...COMMANDS.map((c) => ({ ...c, args: c.argv.map((a, i) => (i === 0 ? join(ROOT, a) : a)) }))];
    const times = new Map([...all.map((c) => [c.name, []]), [ONE_LOOP, []]]);
    for (let round = 0; round <= runs; round++) {
      for (const c of all) {
        const t = await timeRun(c.args, project);
        if (round > 0) times.get(c.name).push(t);
      }
      const t = await oneLoop(round);
      if (round > 0) times.get(ONE_LOOP).push(t);
    }
    const cpuOf = (name) => median(times.get(name).map((t) => t.cpu));
    const wallOf = (name) => median(times.get(name).map((t) => t.wall));
    const node = cpuOf('node -e 0');
    const versus = (name) =>
      `CPU ${cpuOf(name).toFixed(0)} ms vs \`node -e 0\` ${node.toFixed(0)} ms (user+sys); wall ${wallOf(name).toFixed(0)} ms vs ${wallOf('node -e 0').toFixed(0)} ms`;
    const toSpawn = median(times.get(ONE_LOOP).map((t) => t.toFirstSpawn));
    const own = median(times.get(ONE_LOOP).map((t) => t.ownCpu));
    return [
      ...COMMANDS.map((c) =>
        row(`${c.name} cold start − node's own start, CPU, median of ${runs}`, cpuOf(c.name) - node, 'ms', c.budget, 'max', versus(c.name)),
      ),
      row(
        `${ONE_LOOP}, instant fake agent, whole run with the processes it starts − node's own start, CPU, median of ${runs}`,
        cpuOf(ONE_LOOP) - node,
        'ms',
        null,
        'max',
        `${versus(ONE_LOOP)}; ralph's own CPU to its agent call ${toSpawn.toFixed(0)} ms (+${(toSpawn - node).toFixed(0)}), to its exit ${own.toFixed(0)} ms (+${(own - node).toFixed(0)})`,
      ),
    ];
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

const ONE_LOOP = 'ralph --max-loops 1';

/**
 * Times `ralph --max-loops 1` on a fresh copy of a tiny project each round (see one-loop-run.mjs):
 * the CPU of the run and its processes, and ralph's own at its agent call and at exit, from
 * loop-probe.mjs loaded into it.
 */
function oneLoopRunner(root) {
  const { template, env } = prepareOneLoopRun(root, join(ROOT, 'tests/fixtures/claude-cli-2.1.332/happy_sj.stdout'));
  const probe = new URL('./loop-probe.mjs', import.meta.url).href;
  return async (round) => {
    const dir = freshProject(template, join(root, `run-${round}`));
    const probeOut = join(root, `probe-${round}.json`);
    // Exit code 3: the loop budget was reached, the run's one loop done.
    const t = await timeRun([join(ROOT, 'bin/ralph'), '--max-loops', '1'], dir, {
      env: { ...env, NODE_OPTIONS: `--import=${probe}`, BENCH_PROBE_OUT: probeOut },
      okCodes: [3],
    });
    const probed = JSON.parse(readFileSync(probeOut, 'utf8'));
    if (probed.startCpu.length !== 2) throw new Error(`${ONE_LOOP} made ${probed.startCpu.length - 1} agent calls, not 1 (see ${dir}/.ralph/logs/ralph.log)`);
    rmSync(dir, { recursive: true, force: true });
    return { ...t, toFirstSpawn: probed.startCpu[1], ownCpu: probed.processCpuMs };
  };
}
