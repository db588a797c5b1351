// Budget row (docs/performance.md): orchestration cost per loop. A child process (scripts/bench/loop-child.mjs) runs
// the shipped bin/ralph (and, for comparison, the loop imported from dist/ into its own process)
// for LOOPS loops (1,000; 100 with --quick) against an instant fake `claude` and a temporary git
// project, analysis and content progress check included, and reports per loop
// its own CPU (process.cpuUsage: ralph only — the agent and git are separate processes) and
// wall time, each agent-exit → next-spawn gap, and its RSS. The machine this runs on may be
// loaded, so the budget rows are CPU time (medians); wall times are given alongside. Loop
// n's cost runs from its agent's spawn to the next one's; the first WARM_UP loops are left out.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { earlyAndLate, median, percentile, row } from './rows.mjs';

const CHILD = fileURLToPath(new URL('./loop-child.mjs', import.meta.url));
const WARM_UP = 5;
const CPU_BUDGET_MS = 15;
const GAP_BUDGET_MS = 15;
const GROWTH_BUDGET_PCT = 10;
const RSS_BUDGET_MB = 80;

/** Runs the loop child for `loops` loops over a plan of `planItems` open items; killed after `timeoutMs` (none: no limit). */
export function runChild(loops, planItems = 1, timeoutMs = 0, mode = '') {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, String(loops), String(planItems), ...(mode ? [mode] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timedOut = false;
    const timer = timeoutMs > 0 ? setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), timeoutMs) : undefined;
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) reject(new Error(`${loops} loops over ${planItems} items did not finish within ${timeoutMs / 1000} s`));
      else if (code === 0) resolve(JSON.parse(out));
      else reject(new Error(`loop child exited ${code}: ${err.trim().split('\n').pop() ?? ''}`));
    });
  });
}

const pick = (list, from, to) => list.slice(from, to + 1).filter((v) => v !== null && v !== undefined);

/** The medians and RSS figures of one loop child's run. */
function summarize(r) {
  const last = r.loops - 1;
  const counted = (list) => pick(list, WARM_UP + 1, last);
  const cpuEnds = earlyAndLate(r.perLoopCpu, r.loops);
  const wallEnds = earlyAndLate(r.perLoopWall, r.loops);
  const warm = Math.min(100, Math.floor(r.loops / 10));
  return {
    r,
    last,
    counted: counted(r.perLoopCpu).length,
    cpu: median(counted(r.perLoopCpu)),
    wall: median(counted(r.perLoopWall)),
    gapCpu: median(counted(r.gapCpu)),
    gapWall: median(counted(r.gapWall)),
    gapWallP95: percentile(counted(r.gapWall), 95),
    window: cpuEnds.window,
    early: cpuEnds.early,
    late: cpuEnds.late,
    earlyWall: wallEnds.early,
    lateWall: wallEnds.late,
    warm,
    rssWarm: r.rss[warm],
    rssLast: r.rss[r.loops],
  };
}

/**
 * The rows judge the shipped `bin/ralph` (the bundle users run, in its own process); beside each
 * figure the note gives the same run of the loop imported from tsc's per-file output (dist/) into
 * the bench's own process, measured in the same bench run, for comparison.
 */
export async function benchOrchestration({ quick = false } = {}) {
  const loops = quick ? 100 : 1000;
  const s = summarize(await runChild(loops, 1, 0, 'bin'));
  const d = summarize(await runChild(loops));
  const growth = (x) => ((x.late - x.early) / x.early) * 100;
  const unbundled = (text) => `; unbundled dist/ in-process: ${text}`;
  return [
    row(
      `orchestration CPU per loop (bin/ralph, instant fake agent), median of ${s.counted}`,
      s.cpu,
      'ms',
      CPU_BUDGET_MS,
      'max',
      `CPU time of the ralph process; wall per loop ${s.wall.toFixed(1)} ms median (agent, git and machine load included); ${s.r.loops} loops in ${(s.r.wallMs / 1000).toFixed(0)} s${unbundled(`${d.cpu.toFixed(1)} ms`)}`,
    ),
    row(
      'agent exit → next agent spawn, median (bin/ralph CPU)',
      s.gapCpu,
      'ms',
      GAP_BUDGET_MS,
      'max',
      `CPU time of the ralph process inside the gap; wall ${s.gapWall.toFixed(1)} ms median, p95 ${s.gapWallP95.toFixed(1)} ms (includes waiting for git under the machine's load)${unbundled(`${d.gapCpu.toFixed(1)} ms`)}`,
    ),
    row(
      `per-loop CPU at loop ${s.last} vs loop 10 (bin/ralph)`,
      growth(s),
      '%',
      GROWTH_BUDGET_PCT,
      'max',
      `medians of ${s.window} loops: ${s.early.toFixed(1)} ms from loop 10, ${s.late.toFixed(1)} ms up to loop ${s.last}; wall ${s.earlyWall.toFixed(1)} → ${s.lateWall.toFixed(1)} ms${unbundled(`${growth(d).toFixed(1)} %`)}`,
    ),
    row(
      `bin/ralph peak RSS over a ${s.r.loops}-loop run`,
      s.r.peakRssMb,
      'MB',
      RSS_BUDGET_MB,
      'max',
      `maxRSS of the ralph process; RSS ${s.rssWarm.toFixed(1)} MB at loop ${s.warm}, ${s.rssLast.toFixed(1)} MB at loop ${s.r.loops}${unbundled(`${d.r.peakRssMb.toFixed(1)} MB peak`)}`,
    ),
  ];
}
