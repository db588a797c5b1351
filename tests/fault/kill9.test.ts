// kill -9 of `ralph` at random moments: after every kill each state file under .ralph/ still
// parses (or is absent), the next run starts and continues from the state it finds (its call
// count goes on from where the killed run left it), and it takes over the dead run's lock.
// Kill moments are drawn two ways: after a random number of observed writes in .ralph/ (so
// they land between and during state writes), or after a random delay (start-up included).
// `npm test` runs a few trials from a fixed seed; the system suite runs 200+ from a new seed each
// time. RALPH_KILL9_TRIALS and RALPH_KILL9_SEED set both; a failure prints them for a replay.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { homedir } from 'node:os';
import { hourKey } from '../../lib/limits/rate-window.js';
import { ledgerPath, readLedger } from '../../lib/state/ledger.js';
import { binPath, runCli } from '../helpers/run-cli.js';
import type { TmpProject } from '../helpers/tmp-project.js';
import { checkStateFiles, createFastAgent, faultProject, listTempFiles, type FastAgent } from './fast-agent.js';

const TRIALS = Number(process.env.RALPH_KILL9_TRIALS || 12);
const SEED = Number(process.env.RALPH_KILL9_SEED || 424_242);
const CHAINS = 3;
const FOLLOW_UP_EVERY = 10;
const REPLAY = `replay with RALPH_KILL9_SEED=${SEED} RALPH_KILL9_TRIALS=${TRIALS}`;

// Small seeded PRNG: the same seed draws the same kill plans again (timing still varies).
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

interface TrialOutcome {
  killed: boolean;
  code: number | null;
  stderr: string;
}

/**
 * Starts `ralph --max-loops 500` and SIGKILLs it after `events` writes seen in .ralph/, or after
 * `delayMs`. It never gets that far: a loop of the fast agent takes 12 ms or more, so 1,000 ms
 * hold at most about 80 loops (at 50, a fast machine finished a run now and then before a kill
 * late in the second landed).
 */
function runAndKill(project: TmpProject, agent: FastAgent, plan: { events?: number; delayMs?: number }): Promise<TrialOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath('ralph'), '--max-loops', '500'], {
      cwd: project.dir,
      env: { ...process.env, ...agent.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let killed = false;
    let seen = 0;
    const watchers: FSWatcher[] = [];
    const kill = () => {
      if (killed || child.exitCode !== null) return;
      killed = true;
      child.kill('SIGKILL');
    };
    const onEvent = () => {
      if (plan.events !== undefined && ++seen >= plan.events) kill();
    };
    for (const dir of ['.ralph', '.ralph/logs']) {
      if (existsSync(project.path(dir))) watchers.push(watch(project.path(dir), onEvent));
    }
    const timer = plan.delayMs === undefined ? undefined : setTimeout(kill, plan.delayMs);
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      for (const w of watchers) w.close();
      resolve({ killed: killed && signal === 'SIGKILL', code, stderr });
    });
  });
}

const readInt = (project: TmpProject, name: string) => (existsSync(project.path(name)) ? Number(readFileSync(project.path(name), 'utf8').trim() || '0') : 0);
const readText = (project: TmpProject, name: string) => (existsSync(project.path(name)) ? readFileSync(project.path(name), 'utf8') : '');
// The count a run continues from: ralph writes its ledger before the `.call_count` view, so a kill
// between the two leaves the ledger one call ahead, and the ledger counts.
const countedCalls = (project: TmpProject) => {
  const rate = readLedger(ledgerPath(project.dir, process.env, homedir()), () => {})?.rate;
  const view = readInt(project, '.ralph/.call_count');
  return rate && rate.lastReset === readText(project, '.ralph/.last_reset').trim() ? Math.max(rate.calls, view) : view;
};

const stats = { kills: 0, byEvents: 0, byDelay: 0, followUps: 0, staleLockTakeovers: 0, finishedBeforeKill: 0 };
// Chains still running when the test times out stop at their next trial; afterAll waits for them
// and for every process they started before it removes their folders.
let stopping = false;
const chains: Array<Promise<unknown>> = [];
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  stopping = true;
  await Promise.allSettled(chains);
  for (const c of cleanups) await c();
  console.log(`kill -9 trials (seed ${SEED}, ${TRIALS} trials): ${JSON.stringify(stats)}`);
}, 60_000);

async function runChain(chain: number, trials: number): Promise<string[]> {
  const random = prng(SEED + chain * 7919);
  const agent = createFastAgent();
  const project = faultProject();
  cleanups.push(async () => {
    await agent.killLeftovers();
    project.cleanup();
    agent.cleanup();
  });
  const failures: string[] = [];
  for (let trial = 0; trial < trials && !stopping; trial++) {
    const label = `chain ${chain} trial ${trial} (seed ${SEED})`;
    const callsBefore = readInt(project, '.ralph/.call_count');
    const hourBefore = readText(project, '.ralph/.last_reset');
    const clockHourBefore = hourKey(Date.now());
    // A run makes ~40 file events while starting and ~120 per loop; start-up before the first
    // write takes most of a second on a busy machine.
    const byEvents = random() < 0.75;
    const plan = byEvents ? { events: 1 + Math.floor(random() * 220) } : { delayMs: Math.floor(random() * 1000) };
    const outcome = await runAndKill(project, agent, plan);
    await agent.killLeftovers();
    if (outcome.killed) {
      stats.kills++;
      if (byEvents) stats.byEvents++;
      else stats.byDelay++;
    } else if (outcome.code === 3) {
      stats.finishedBeforeKill++;
    } else {
      failures.push(`${label}: ralph exited ${outcome.code} on its own:\n${outcome.stderr.slice(-1500)}`);
    }
    if (/Took over a stale lock/.test(outcome.stderr)) stats.staleLockTakeovers++;
    // The run started from the state the previous kill left: the call count never went back. Unless
    // a new clock hour began meanwhile: the run zeroes the count then, and a kill between its
    // writes of `.call_count` and `.last_reset` leaves the old hour beside the new count (the
    // ledger, which the next run continues from, holds both at once).
    const sameClockHour = hourKey(Date.now()) === clockHourBefore;
    if (sameClockHour && readText(project, '.ralph/.last_reset') === hourBefore && readInt(project, '.ralph/.call_count') < callsBefore) {
      failures.push(`${label}: .call_count went back from ${callsBefore} to ${readInt(project, '.ralph/.call_count')}`);
    }
    for (const problem of checkStateFiles(project.dir)) failures.push(`${label} (${JSON.stringify(plan)}): ${problem}`);

    if (trial % FOLLOW_UP_EVERY === FOLLOW_UP_EVERY - 1 || trial === trials - 1) {
      stats.followUps++;
      const before = countedCalls(project);
      const hour = readText(project, '.ralph/.last_reset');
      const clockHour = hourKey(Date.now());
      // --fresh: the killed runs' calls count against their own --max-loops; this one makes one call.
      const next = await runCli('ralph', ['--fresh', '--max-loops', '1'], { cwd: project.dir, env: agent.env });
      if (next.code !== 3 || !/exit reason: max_loops_reached/.test(next.stderr)) {
        failures.push(`${label}: follow-up run exited ${next.code}:\n${next.stderr.slice(-1500)}`);
      }
      if (/Took over a stale lock/.test(next.stderr)) stats.staleLockTakeovers++;
      const status = JSON.parse(readText(project, '.ralph/status.json')) as { exit_reason?: string };
      if (status.exit_reason !== 'max_loops_reached') failures.push(`${label}: follow-up status.json says ${status.exit_reason}`);
      if (hourKey(Date.now()) === clockHour && readText(project, '.ralph/.last_reset') === hour && readInt(project, '.ralph/.call_count') !== before + 1) {
        failures.push(`${label}: follow-up did not continue the call count (${before} → ${readInt(project, '.ralph/.call_count')})`);
      }
      if (existsSync(project.path('.ralph/.ralph.lock'))) failures.push(`${label}: follow-up left its lock behind`);
      for (const problem of checkStateFiles(project.dir)) failures.push(`${label} after follow-up: ${problem}`);
      // The follow-up swept every temp file the killed runs left, and left none of its own.
      const temps = listTempFiles(project.dir);
      if (temps.length > 0) failures.push(`${label}: temp files left after the follow-up: ${temps.join(', ')}`);
    }
  }
  return failures;
}

describe('kill -9 at random moments', () => {
  it(
    `leaves every state file parseable and the next run continuing, over ${TRIALS} kills (seed ${SEED})`,
    async () => {
      const perChain = Math.ceil(TRIALS / CHAINS);
      chains.push(...Array.from({ length: CHAINS }, (_, chain) => runChain(chain, perChain)));
      const results = (await Promise.all(chains)) as string[][];
      expect(results.flat(), REPLAY).toEqual([]);
      // A run now and then finishes its loop before its kill lands (counted, not failed): one in 200.
      const total = perChain * CHAINS;
      expect(stats.kills, REPLAY).toBeGreaterThanOrEqual(total - Math.ceil(total / 200));
      expect(stats.followUps, REPLAY).toBe(CHAINS * Math.ceil(perChain / FOLLOW_UP_EVERY));
      expect(stats.staleLockTakeovers, REPLAY).toBeGreaterThan(0);
    },
    Math.max(180_000, TRIALS * 5_000),
  );
});
