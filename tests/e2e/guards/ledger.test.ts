// The ledger outside the project holds the budgets: the real `bin/ralph` with a fake agent
// that rewrites `.ralph/.call_count` and `.last_reset`, or deletes `.ralph/.run_state` and
// `.ralph/sessions/` mid-call before ralph is killed with -9. The restarted ralph still counts
// the calls of the hour and resumes the run with its spend: the ledger wins over the views.
// Every ralph here gets the test file's own XDG_STATE_HOME (tests/helpers/state-home.ts).

import { existsSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hourKey } from '../../../lib/limits/rate-window.js';
import { withFakeClaude, type FakeCallScript, type FakeClaude, type FakeScenario, killUnfinishedCalls } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli, type CliResult } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { readRunRecords } from '../../integration/verify-loop/verify-loop-fixture.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { useTimeZone, zoneFarFromTheHoursEnd } from '../../helpers/time-zone.js';

const PLAN = `# Fix Plan\n${Array.from({ length: 9 }, (_, i) => `- [ ] item ${i + 1}`).join('\n')}\n`;
/** A call that does real work (so no guard stops it), costs $1 and uses 1000 tokens. */
const work = (n: number, extra: Partial<FakeCallScript> = {}): FakeCallScript => ({
  costUsd: 1,
  usage: { input_tokens: 600, output_tokens: 400 },
  tickFixPlan: 1,
  ...extra,
  writeFiles: { [`src/part${n}.ts`]: `export const part${n} = ${n};\n`, ...extra.writeFiles },
  statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
});
/** Call 2 deletes ralph's run state in the project, then hangs until ralph is killed. */
const WIPE: FakeCallScript = {
  steps: [
    { tool: 'Bash', input: { command: 'rm -rf .ralph/.run_state .ralph/sessions .ralph/.call_count .ralph/.token_count .ralph/.last_reset' }, exec: true },
    { text: 'thinking', hang: true },
  ],
};
const RC = `${FAST_LOOP_RC}SESSION_CONTINUITY=false\nALLOWED_TOOLS="Write,Read,Edit,Bash(rm *)"\n`;

const cleanups = useCleanups();
// ralph counts calls by the local hour, on the real clock: the file runs (its ralph processes too)
// in a zone where that hour has half an hour to go, so it cannot turn between two runs of a test.
useTimeZone(zoneFarFromTheHoursEnd());

function setUp(scenario: FakeScenario, rc = ''): { project: TmpProject; fake: FakeClaude } {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': RC + rc, '.ralph/fix_plan.md': PLAN }), { git: true });
  cleanups.push(() => project.cleanup());
  const fake = withFakeClaude(scenario);
  cleanups.push(() => fake.cleanup());
  cleanups.push(() => killUnfinishedCalls(fake));
  return { project, fake };
}

/** Runs ralph until `done()` holds (checked on every change in .ralph/ and the fake's log), then kills it with `signal`. */
async function runUntil(project: TmpProject, fake: FakeClaude, args: string[], done: () => boolean, signal: NodeJS.Signals): Promise<CliResult> {
  let killed = false;
  const result = await runCli('ralph', args, {
    cwd: project.dir,
    env: fake.env,
    onSpawn: (child) => {
      const watchers = [watch(dirname(fake.logPath), () => check()), watch(project.path('.ralph'), () => check())];
      const check = () => {
        if (killed || !done()) return;
        killed = true;
        for (const w of watchers) w.close();
        child.kill(signal);
        if (signal === 'SIGKILL') killUnfinishedCalls(fake);
      };
      child.on('exit', () => watchers.forEach((w) => w.close()));
      check();
    },
  });
  expect(killed, result.stderr.slice(-2000)).toBe(true);
  return result;
}

const rateLimited = (project: TmpProject) => () => {
  try {
    return JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8')).status === 'paused';
  } catch {
    return false;
  }
};
const statusJson = (project: TmpProject) => JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8')) as Record<string, unknown>;

/** Kills ralph -9 once call 2 of the fake has wiped .ralph/ state. */
async function killAfterWipe(project: TmpProject, fake: FakeClaude, args: string[]): Promise<string> {
  // The run id is read from the session record while it still exists.
  let runId = '';
  await runUntil(
    project,
    fake,
    args,
    () => {
      if (!runId && existsSync(project.path('.ralph/sessions'))) runId = readRunRecords(project.dir)[0]?.run_id ?? '';
      return fake.runs()[1]?.scenarioCall !== undefined && !existsSync(project.path('.ralph/sessions'));
    },
    'SIGKILL',
  );
  expect(existsSync(project.path('.ralph/.run_state'))).toBe(false);
  expect(fake.runs()).toHaveLength(2);
  return runId;
}

describe('the ledger outside the project', () => {
  it('--calls 3: counters the agent reset to 0 in .ralph/ allow no more calls in that hour after a restart', async () => {
    const hour = hourKey(Date.now());
    const tamper = { '.ralph/.call_count': '0\n', '.ralph/.last_reset': `${hour}\n`, '.ralph/.token_count': '0\n' };
    const { project, fake } = setUp({ calls: [work(1), work(2), work(3, { writeFiles: tamper }), work(4), work(5), work(6)] });

    // Three calls, then ralph waits for the next hour: stopped there (as a user would).
    await runUntil(project, fake, ['--calls', '3'], rateLimited(project), 'SIGTERM');
    expect(fake.runs()).toHaveLength(3);
    expect(readFileSync(project.path('.ralph/.call_count'), 'utf8').trim()).toBe('0');

    // The old code made three more calls before it waited for the next hour.
    const second = await runUntil(project, fake, ['--calls', '3'], () => rateLimited(project)() || fake.runs().length > 3, 'SIGTERM');
    expect(fake.runs(), second.stderr.slice(-3000)).toHaveLength(3);
    expect(second.stderr).toContain("differ from ralph's ledger (3 calls");
    expect(readFileSync(project.path('.ralph/.call_count'), 'utf8').trim()).toBe('3');
  });

  it('--max-cost 3: .run_state and sessions/ deleted mid-call, ralph killed -9: the run resumes and the budget holds', async () => {
    const { project, fake } = setUp({ calls: [work(1), WIPE, work(3), work(4), work(5), work(6)] });
    const runId = await killAfterWipe(project, fake, ['--max-cost', '3']);

    const result = await runCli('ralph', ['--max-cost', '3'], { cwd: project.dir, env: fake.env });
    expect(result.code, result.stderr.slice(-2000)).toBe(3);
    expect(statusJson(project).exit_reason).toBe('cost_budget_exhausted');
    // $1, the cut-off call (cost unknown: charged the highest cost of one call, $1), then $1.
    expect(fake.runs()).toHaveLength(3);
    expect(result.stderr).toContain(`ralph's ledger holds run ${runId} unfinished; that run goes on`);
    expect(result.stderr).not.toContain('Starting a new run');
    expect(readRunRecords(project.dir).map((r) => r.run_id)).toEqual([runId]);
  });

  it('--max-loops 3: the same wipe and kill -9 leave one more call, not three', async () => {
    const { project, fake } = setUp({ calls: [work(1), WIPE, work(3), work(4), work(5), work(6)] });
    await killAfterWipe(project, fake, ['--max-loops', '3']);

    const result = await runCli('ralph', ['--max-loops', '3'], { cwd: project.dir, env: fake.env });
    expect(result.code, result.stderr.slice(-2000)).toBe(3);
    expect(statusJson(project).exit_reason).toBe('max_loops_reached');
    expect(fake.runs()).toHaveLength(3);
  });

  it('MAX_TOKENS_PER_HOUR=2000: the same wipe and kill -9 leave the tokens of the hour counted', async () => {
    // 1000 tokens a call: call 1 and call 3 reach 2000.
    const { project, fake } = setUp({ calls: [work(1), WIPE, work(3), work(4), work(5), work(6)] }, 'MAX_TOKENS_PER_HOUR=2000\n');
    await killAfterWipe(project, fake, []);

    const result = await runCli('ralph', [], { cwd: project.dir, env: fake.env });
    expect(result.code, result.stderr.slice(-2000)).toBe(3);
    expect(statusJson(project).exit_reason).toBe('token_budget_exhausted');
    expect(fake.runs()).toHaveLength(3);
    expect(result.stderr).toContain('Token budget reached: 2000 tokens this hour of MAX_TOKENS_PER_HOUR=2000');
  });
});

describe('ralph --status reads the ledger', () => {
  it('shows the calls, cost, tokens and hour the ledger holds, and names each view the agent rewrote', async () => {
    const { project, fake } = setUp({ calls: [work(1), work(2)] });
    const run = await runCli('ralph', ['--max-loops', '2'], { cwd: project.dir, env: fake.env });
    expect(run.code, run.stderr.slice(-2000)).toBe(3);
    const hour = hourKey(Date.now());
    const runId = readRunRecords(project.dir)[0]!.run_id;

    // Between runs, a process of the agent rewrites the views in .ralph/ (as a daemon could).
    writeFileSync(project.path('.ralph/.call_count'), '0\n');
    writeFileSync(project.path('.ralph/.token_count'), '0\n');
    const status = statusJson(project);
    const tokens = status.run_tokens as number;
    expect(tokens).toBeGreaterThanOrEqual(2000);
    writeFileSync(project.path('.ralph/status.json'), JSON.stringify({ ...status, calls_made_this_hour: 0, run_cost_usd: 0, run_loops: 0, run_tokens: 0 }));
    rmSync(project.path('.ralph/.run_state'));

    const json = await runCli('ralph', ['--status', '--json'], { cwd: project.dir, env: fake.env });
    const state = JSON.parse(json.stdout) as Record<string, Record<string, unknown>>;
    expect(state.rate_window).toMatchObject({ calls_this_hour: 2, tokens_this_hour: 2000 });
    expect(state.budgets).toMatchObject({ run_cost_usd: 2, run_tokens: tokens, run_loops: 2, run_id: runId });
    expect(state.ledger).toMatchObject({
      rate: { calls_this_hour: 2, tokens_this_hour: 2000 },
      run: { run_id: runId, unfinished: false, loops: 2, cost_usd: 2, tokens },
    });
    const differences = state.ledger!.differences as string[];
    expect(differences).toEqual([
      expect.stringContaining('(0 calls, 0 tokens, hour'),
      expect.stringContaining(`.run_state is missing; ralph's ledger holds run ${runId} with 2 call(s)`),
      `status.json says calls_made_this_hour 0, run_loops 0, run_cost_usd 0, run_tokens 0; ralph's ledger holds calls_made_this_hour 2, run_loops 2, run_cost_usd 2, run_tokens ${tokens}, and the ledger counts`,
    ]);
    expect(state.warnings).toEqual(expect.arrayContaining(differences));

    const plain = await runCli('ralph', ['--status'], { cwd: project.dir, env: fake.env });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(`Hour ${hour}: 2 call(s), 2000 token(s)`);
    expect(plain.stdout).toContain(`Run ${runId}: 2 call(s), $2.00, ${tokens} token(s)`);
    expect(plain.stdout).toContain('Note: .ralph/.call_count, .token_count and .last_reset (0 calls, 0 tokens');
    expect(plain.stdout).toContain('Note: status.json says calls_made_this_hour 0');
  });
});
