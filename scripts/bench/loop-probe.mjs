// Loaded into the shipped `bin/ralph` by the orchestration bench (NODE_OPTIONS=--import, set by
// loop-child.mjs in its `bin` mode) to time ralph as users run it, bundle and all. It wraps
// child_process.spawn: at each spawn of the agent (`claude`) it notes this process's CPU, the
// wall clock and RSS, and again when that agent exits; on exit it writes them, with the peak RSS
// (maxRSS), as JSON to $BENCH_PROBE_OUT (and it may mark a loop: BENCH_PROBE_MARK below). It loads nothing but Node's own modules, and removes
// NODE_OPTIONS from the environment so that no process ralph starts loads it.

import childProcess from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';

const out = process.env.BENCH_PROBE_OUT;
// BENCH_PROBE_MARK: a file created when the agent is spawned for loop BENCH_PROBE_MARK_AT (the
// bench starts a fresh run beside this one then, to compare the two at the same moments).
const mark = process.env.BENCH_PROBE_MARK;
const markAt = Number(process.env.BENCH_PROBE_MARK_AT ?? 0);
delete process.env.NODE_OPTIONS;
delete process.env.BENCH_PROBE_OUT;
delete process.env.BENCH_PROBE_MARK;
delete process.env.BENCH_PROBE_MARK_AT;

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const times = { startCpu: [null], startWall: [null], exitCpu: [null], exitWall: [null], rss: [null] };
const spawn = childProcess.spawn;
childProcess.spawn = function probedSpawn(command, ...rest) {
  const args = Array.isArray(rest[0]) ? rest[0] : [];
  const agent = typeof command === 'string' && basename(command) === 'claude' && !args.includes('--version');
  if (agent) {
    times.startWall.push(performance.now());
    times.startCpu.push(cpuMs());
    times.rss.push(process.memoryUsage.rss() / 1e6);
    if (mark && times.startCpu.length - 1 === markAt) writeFileSync(mark, '');
  }
  const child = spawn.call(this, command, ...rest);
  if (agent) {
    const n = times.startCpu.length - 1;
    child.once('exit', () => {
      times.exitWall[n] = performance.now();
      times.exitCpu[n] = cpuMs();
    });
  }
  return child;
};

process.once('exit', () => {
  if (out) writeFileSync(out, JSON.stringify({ ...times, peakRssMb: (process.resourceUsage().maxRSS * 1024) / 1e6, processCpuMs: cpuMs() }));
});
