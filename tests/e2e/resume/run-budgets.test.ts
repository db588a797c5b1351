// Budgets belong to the run: the real `bin/ralph` under --max-loops / --max-cost is killed with
// SIGKILL while the fake's second call hangs (the kill waits on the fake's call log, not on a
// timer), then started again with the same budget. The resumed run counts the cut-off call
// (its cost unknown) and the earlier spend, so the budget holds across the restart; a garbage
// .run_state is a warning naming it, and the budget still holds (ralph's ledger counts); a run that stopped at its
// budget is finished, and the next ralph starts a new run and says so. Uses the built dist/.

import { readFileSync, watch, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { paidWorkCall, withFakeClaude, type FakeCallScript, type FakeClaude, killUnfinishedCalls } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli, type CliResult } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { readRunRecords } from '../../integration/verify-loop/verify-loop-fixture.js';
import { useCleanups } from '../../helpers/cleanups.js';

const PLAN = `# Fix Plan\n${Array.from({ length: 8 }, (_, i) => `- [ ] item ${i + 1}`).join('\n')}\n`;
/** A call that does real work (so no guard stops it) and costs $1. */
const work = (n: number): FakeCallScript => paidWorkCall(n);
const SCENARIO = { calls: [work(1), { hang: 'afterInit' as const }, work(3), work(4), work(5), work(6), work(7)] };

const cleanups = useCleanups();

interface Killed {
  project: TmpProject;
  fake: FakeClaude;
  runId: string;
}

/** Runs `ralph args` until the fake's second call has started, then SIGKILLs ralph and the hung agent. */
async function killDuringCall2(args: string[], rc = '', signal: NodeJS.Signals = 'SIGKILL'): Promise<Killed> {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC + rc, '.ralph/fix_plan.md': PLAN }), { git: true });
  cleanups.push(() => project.cleanup());
  const fake = withFakeClaude(SCENARIO);
  cleanups.push(() => fake.cleanup());
  // The hanging agent runs in its own process group, which outlives a SIGKILLed ralph.
  cleanups.push(() => killUnfinishedCalls(fake));

  let killed = false;
  const result = await runCli('ralph', args, {
    cwd: project.dir,
    env: fake.env,
    onSpawn: (child) => {
      // The fake logs each step of a call: kill once the second call has taken its (hanging)
      // scenario entry, so the next call gets the entry after it.
      const watcher = watch(dirname(fake.logPath), () => check());
      const check = () => {
        if (killed || fake.runs()[1]?.scenarioCall === undefined) return;
        killed = true;
        watcher.close();
        child.kill(signal);
        // After SIGKILL the hung agent outlives ralph: stop it too. SIGTERM: ralph stops it.
        if (signal === 'SIGKILL') killUnfinishedCalls(fake);
      };
      child.on('exit', () => watcher.close());
      check();
    },
  });
  expect(killed).toBe(true);
  if (signal === 'SIGKILL') expect(result.signal).toBe('SIGKILL');
  else expect(result.code).toBe(143);
  killUnfinishedCalls(fake);
  expect(fake.runs()).toHaveLength(2);
  const records = readRunRecords(project.dir);
  expect(records).toHaveLength(1);
  return { project, fake, runId: records[0]!.run_id };
}

const ralphLog = (project: TmpProject) => readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8');
const statusJson = (project: TmpProject) => JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8')) as Record<string, unknown>;

function expectStoppedAt(result: CliResult, project: TmpProject, exitReason: string): void {
  expect(result.code, result.stderr.slice(-2000)).toBe(3);
  expect(statusJson(project).exit_reason).toBe(exitReason);
}

describe('budgets across kill -9 and resume', () => {
  it('--max-loops 3, killed during call 2: the resumed run makes one more call (3 in all) and stops at max loops', async () => {
    const { project, fake, runId } = await killDuringCall2(['--max-loops', '3']);

    const result = await runCli('ralph', ['--max-loops', '3'], { cwd: project.dir, env: fake.env });
    expectStoppedAt(result, project, 'max_loops_reached');
    expect(fake.runs()).toHaveLength(3);
    const log = ralphLog(project);
    expect(log).toContain(`Resuming run ${runId} at loop 2`);
    // The cut-off call is charged the highest cost of one call seen ($1): ralph cut it off itself.
    expect(log).toContain(`Run ${runId} so far: 2 agent call(s), $2.00 (with $1.00 charged for 1 call of unknown cost)`);
    expect(log).toContain('Loop budget reached: 3 of --max-loops 3 loops done');

    const [record] = readRunRecords(project.dir);
    expect(record!.status).toBe('exhausted');
    expect(record!.attempts.map((a) => `${a.loop}:${a.state}`)).toEqual(['1:finished', '2:cut-off', '2:finished']);

    const status = JSON.parse((await runCli('ralph', ['--status', '--json'], { cwd: project.dir })).stdout);
    expect(status.budgets).toMatchObject({ max_loops: 3, run_loops: 3, run_unknown_cost_calls: 1, run_id: runId });
    expect(status.budgets.run_cost_usd).toBeCloseTo(3, 9);
  });

  it('--max-cost 3 at $1 a call, killed during call 2: the resumed run stops at $3, not $3 more', async () => {
    // Each call a fresh agent session, so each reports $1 (a resumed one reports its session's total).
    const { project, fake } = await killDuringCall2(['--max-cost', '3'], 'SESSION_CONTINUITY=false\n');

    const result = await runCli('ralph', ['--max-cost', '3'], { cwd: project.dir, env: fake.env });
    expectStoppedAt(result, project, 'cost_budget_exhausted');
    // $1 before the kill, the cut-off call charged the highest cost seen ($1), then $1.
    expect(fake.runs()).toHaveLength(3);
    expect(ralphLog(project)).toContain('Cost budget reached: spent $3.00 (with $1.00 charged for 1 call of unknown cost) of --max-cost $3.00');
    expect(statusJson(project).run_cost_usd).toBeCloseTo(3, 9);
  });

  it('--max-loops 2, SIGTERM during call 2: the interrupted call counts, so the resumed run makes none', async () => {
    const { project, fake, runId } = await killDuringCall2(['--max-loops', '2'], '', 'SIGTERM');

    const result = await runCli('ralph', ['--max-loops', '2'], { cwd: project.dir, env: fake.env });
    expectStoppedAt(result, project, 'max_loops_reached');
    expect(fake.runs()).toHaveLength(2);
    expect(ralphLog(project)).toContain(`Resuming run ${runId} at loop 2`);
    expect(readRunRecords(project.dir)[0]!.status).toBe('exhausted');
  });

  it("a garbage .run_state is a warning naming it, and the budget counts what ralph's ledger holds", async () => {
    const { project, fake, runId } = await killDuringCall2(['--max-loops', '3']);
    writeFileSync(project.path('.ralph/.run_state'), '{"spend": garbage');

    const result = await runCli('ralph', ['--max-loops', '3'], { cwd: project.dir, env: fake.env });
    expectStoppedAt(result, project, 'max_loops_reached');
    expect(fake.runs()).toHaveLength(3);
    expect(result.stderr).toContain(`.run_state is unreadable; ralph's ledger holds run ${runId} with 2 call(s), and the ledger counts`);
  });

  it('a run that stopped at its budget is finished: the next ralph starts a new run and says so in one line', async () => {
    const { project, fake, runId } = await killDuringCall2(['--max-loops', '3']);
    expectStoppedAt(await runCli('ralph', ['--max-loops', '3'], { cwd: project.dir, env: fake.env }), project, 'max_loops_reached');

    const next = await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env: fake.env });
    expectStoppedAt(next, project, 'max_loops_reached');
    expect(fake.runs()).toHaveLength(4);
    const records = readRunRecords(project.dir);
    expect(records).toHaveLength(2);
    const fresh = records.find((r) => r.run_id !== runId)!;
    const lines = next.stderr.split('\n').filter((l) => /Starting a new run|Resuming run/.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `Starting a new run (last run ${runId} stopped at its budget: Loop budget reached: 3 of --max-loops 3 loops done): run ${fresh.run_id}`,
    );
    expect(fresh.attempts.map((a) => a.loop)).toEqual([1]);
  });
});
