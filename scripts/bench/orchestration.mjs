// Budget row (docs/performance.md): orchestration cost per loop. A child process (scripts/bench/loop-child.mjs) runs
// the real loop for LOOPS loops (1,000; 100 with --quick) against an instant fake `claude` and a
// temporary git project, analysis and content progress check included, and reports per loop
// its own CPU (process.cpuUsage: ralph only — the agent and git are separate processes) and
// wall time, each agent-exit → next-spawn gap, and its RSS. The machine this runs on may be
// loaded, so the budget rows are CPU time (medians); wall times are given alongside. Loop
// n's cost runs from its agent's spawn to the next one's; the first WARM_UP loops are left out.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, percentile, row } from './rows.mjs';

const CHILD = fileURLToPath(new URL('./loop-child.mjs', import.meta.url));
const WARM_UP = 5;
const WINDOW = 10;
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

export async function benchOrchestration({ quick = false } = {}) {
  const loops = quick ? 100 : 1000;
  const r = await runChild(loops);
  const last = r.loops - 1;
  const counted = (list) => pick(list, WARM_UP + 1, last);
  const cpu = median(counted(r.perLoopCpu));
  const wall = median(counted(r.perLoopWall));
  // "Loop 10" and "loop N": the median of the WINDOW loops around each, so one preempted loop
  // on a busy machine does not decide the row.
  const early = median(pick(r.perLoopCpu, 10 - WINDOW / 2, 10 + WINDOW / 2 - 1));
  const late = median(pick(r.perLoopCpu, last - WINDOW + 1, last));
  const earlyWall = median(pick(r.perLoopWall, 10 - WINDOW / 2, 10 + WINDOW / 2 - 1));
  const lateWall = median(pick(r.perLoopWall, last - WINDOW + 1, last));
  const growth = ((late - early) / early) * 100;
  const warm = Math.min(100, Math.floor(r.loops / 10));
  const rssWarm = r.rss[warm];
  const rssLast = r.rss[r.loops];
  return [
    row(
      `orchestration CPU per loop (instant fake agent), median of ${counted(r.perLoopCpu).length}`,
      cpu,
      'ms',
      CPU_BUDGET_MS,
      'max',
      `CPU time of the ralph process; wall per loop ${wall.toFixed(1)} ms median (agent, git and machine load included); ${r.loops} loops in ${(r.wallMs / 1000).toFixed(0)} s`,
    ),
    row(
      'agent exit → next agent spawn, median (ralph CPU)',
      median(counted(r.gapCpu)),
      'ms',
      GAP_BUDGET_MS,
      'max',
      `CPU time of the ralph process inside the gap; wall ${median(counted(r.gapWall)).toFixed(1)} ms median, p95 ${percentile(counted(r.gapWall), 95).toFixed(1)} ms (includes waiting for git under the machine's load)`,
    ),
    row(
      `per-loop CPU at loop ${last} vs loop 10`,
      growth,
      '%',
      GROWTH_BUDGET_PCT,
      'max',
      `medians of ${WINDOW} loops: ${early.toFixed(1)} ms around loop 10, ${late.toFixed(1)} ms up to loop ${last}; wall ${earlyWall.toFixed(1)} → ${lateWall.toFixed(1)} ms`,
    ),
    row(
      `ralph peak RSS over a ${r.loops}-loop run`,
      r.peakRssMb,
      'MB',
      RSS_BUDGET_MB,
      'max',
      `maxRSS of the loop process; RSS ${rssWarm.toFixed(1)} MB at loop ${warm}, ${rssLast.toFixed(1)} MB at loop ${r.loops}`,
    ),
  ];
}
