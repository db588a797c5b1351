// `ralph-fleet job` end to end, as the workflow's step runs it: a fresh clone of a bare `origin`,
// a fake `gh` (tests/fixtures/fake-gh-fleet), the fake agent, GitHub's event file. Done → the
// branch pushed, a pull request closing the issue, ralph-done; halted → a comment and
// ralph-needs-help, no pull request; the job's time budget → state kept on origin and the next
// job dispatched, which resumes the same run in a new clone and finishes; a labeller without
// write access → nothing runs.

import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parseFleetArgs, type FleetJobArgs } from '../../../lib/cli/fleet/fleet-args.js';
import { runFleetJob } from '../../../lib/fleet/job.js';
import { PUSH_RETRY_DELAYS_MS } from '../../../lib/fleet/retry.js';
import { systemClock, type Clock } from '../../../lib/platform/clock.js';
import { createDeps } from '../../../lib/platform/create-deps.js';
import type { FakeClaude, FakeScenario } from '../../helpers/fake-claude.js';
import { FLEET_ISSUE, useFleetFixtures, type FleetRepo } from '../../helpers/fleet-repo.js';
import { captureOutput } from '../../helpers/loop-harness.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV } from '../../helpers/tmp-project.js';

const BOT_EMAIL = '41898282+github-actions[bot]@users.noreply.github.com';
const ISSUE = FLEET_ISSUE;
const fixtures = useFleetFixtures();
let claude: FakeClaude | undefined;

function setUp(scenario: FakeScenario, rc = ''): FleetRepo {
  const made = fixtures(scenario, {
    rc,
    gh: { issues: [ISSUE], permissions: { owner: 'admin', stranger: 'read', triager: 'triage' }, timeline: { 7: [labelledBy('owner')] } },
  });
  claude = made.claude;
  return made.repo;
}

/** The job's env: the fakes on PATH, GitHub's event, and no git identity but the job's own. */
function jobEnv(r: FleetRepo, event: { name: 'issues'; sender: string } | { name: 'workflow_dispatch' } | { name: 'schedule' }): NodeJS.ProcessEnv {
  const eventFile = join(r.root, `event-${Date.now()}-${Math.random()}.json`);
  writeFileSync(
    eventFile,
    JSON.stringify(
      event.name === 'issues'
        ? { action: 'labeled', label: { name: 'ralph' }, sender: { login: event.sender }, issue: { number: 7 } }
        : { inputs: { issue: '7' } },
    ),
  );
  return {
    ...claude!.env,
    ...r.ghEnv,
    PATH: [r.ghBinDir, claude!.env.PATH].join(delimiter),
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: eventFile,
    GIT_AUTHOR_NAME: undefined,
    GIT_AUTHOR_EMAIL: undefined,
    GIT_COMMITTER_NAME: undefined,
    GIT_COMMITTER_EMAIL: undefined,
  };
}

/** An env as a child process gets it: the entries set to undefined are left out. */
function withoutUnset(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
}

function jobArgs(argv: string[]): FleetJobArgs {
  const command = parseFleetArgs(argv);
  if (typeof command === 'string' || command.kind !== 'job') throw new Error(`not a job command: ${argv.join(' ')}`);
  return command;
}

/**
 * The system clock, except for the job's time budget (the one wait of `budgetMs`): it runs out
 * as soon as `due()` holds, checked every 20 ms, unless the job ends its wait first.
 */
function budgetClock(budgetMs: number, due: () => boolean): Clock & { readonly budgetsRunOut: number } {
  let budgetsRunOut = 0;
  return {
    now: systemClock.now,
    async sleep(ms, signal) {
      if (ms !== budgetMs) return systemClock.sleep(ms, signal);
      while (!due() && !signal?.aborted) await systemClock.sleep(20, signal);
      if (!signal?.aborted) budgetsRunOut++;
    },
    get budgetsRunOut() {
      return budgetsRunOut;
    },
  };
}

function originHas(r: FleetRepo, branch: string): boolean {
  return execFileSync('git', ['--git-dir', r.origin, 'branch', '--list', branch], { encoding: 'utf8' }).trim() !== '';
}

const JOB = ['job', '--issue', '7', '--no-sandbox', '--workflow', 'ralph.yml'];

/** A timeline event: `login` added the fleet's label. */
function labelledBy(login: string, label = 'ralph') {
  return { event: 'labeled', actor: { login }, label: { name: label }, created_at: '2026-12-01T10:00:00Z' };
}

describe('ralph-fleet job', () => {
  it('done: pushes ralph/issue-7 with the work by the bot, opens a pull request closing the issue and labels it ralph-done', async () => {
    // The project turned progress comments off: the job keeps to that.
    const r = setUp(
      { calls: [{ resultText: 'Added it.', tickFixPlan: 'all', costUsd: 0.5, writeFiles: { 'work.txt': 'work\n' } }] },
      'COMMENT_PROGRESS=false\nCOMMENT_INTERVAL=1\n',
    );
    const dir = r.cloneJob();
    const run = await runCli('ralph-fleet', JOB, { cwd: dir, env: jobEnv(r, { name: 'issues', sender: 'owner' }) });
    expect(run.code, run.stderr).toBe(0);
    expect(execFileSync('git', ['--git-dir', r.origin, 'show', 'ralph/issue-7:work.txt'], { encoding: 'utf8' })).toBe('work\n');
    expect(execFileSync('git', ['--git-dir', r.origin, 'log', '-1', '--format=%ae %s', 'ralph/issue-7'], { encoding: 'utf8' }).trim()).toBe(
      `${BOT_EMAIL} Fix #7: Add the work file`,
    );
    const calls = r.ghCalls();
    const pr = calls.find((c) => c.argv[0] === 'pr' && c.argv[1] === 'create');
    expect(pr?.stdin).toContain('Closes #7');
    expect(calls.some((c) => c.argv.join(' ') === 'issue edit 7 --add-label ralph-done')).toBe(true);
    // The run's cost, for people and for ralph-fleet status.
    expect(commentsOn(r).at(-1)).toContain(
      'Cost so far: $0.50 over 1 agent call.\n<!-- ralph-fleet-cost {"cost_usd":0.5,"calls":1,"unknown_cost_calls":0} -->',
    );
    expect(commentsOn(r).some((body) => body.includes('Ralph progress update'))).toBe(false);
    // The PR holds the project's changes only; the run's state is not left behind on origin.
    expect(execFileSync('git', ['--git-dir', r.origin, 'ls-tree', '-r', '--name-only', 'ralph/issue-7'], { encoding: 'utf8' })).not.toContain(
      '.ralph/specs/issue-7.md',
    );
    expect(originHas(r, 'ralph/issue-7-state')).toBe(false);
  }, 120_000);

  it('halted at a limit: comments why and what to do, labels ralph-needs-help, keeps the branch, opens no pull request', async () => {
    const r = setUp({ calls: [{ resultText: 'Still thinking.', costUsd: 0.25, writeFiles: { 'half.txt': 'half\n' } }] }, 'MAX_LOOPS=1\nCOMMENT_INTERVAL=1\n');
    const dir = r.cloneJob();
    const run = await runCli('ralph-fleet', JOB, { cwd: dir, env: jobEnv(r, { name: 'issues', sender: 'owner' }) });
    expect(run.code, run.stderr).toBe(3);
    const calls = r.ghCalls();
    expect(calls.some((c) => c.argv[0] === 'pr' && c.argv[1] === 'create')).toBe(false);
    expect(calls.some((c) => c.argv.join(' ') === 'issue edit 7 --add-label ralph-needs-help')).toBe(true);
    const comment = calls.find((c) => c.argv[0] === 'issue' && c.argv[1] === 'comment');
    // Progress comments are on by default in a job, each with the cost so far.
    expect(comment?.stdin).toContain('Ralph progress update — loop #1');
    expect(comment?.stdin).toContain('Cost so far: $0.25 over 1 agent call.');
    const halt = calls.filter((c) => c.argv[0] === 'issue' && c.argv[1] === 'comment').at(-1);
    expect(halt?.stdin).toMatch(/stopped at a limit \(max_loops_reached\)/);
    expect(halt?.stdin).toContain('ralph-fleet start 7');
    expect(halt?.stdin).toContain('Cost so far: $0.25 over 1 agent call.');
    expect(execFileSync('git', ['--git-dir', r.origin, 'show', 'ralph/issue-7:half.txt'], { encoding: 'utf8' })).toBe('half\n');
  }, 120_000);

  it("the job's time budget: keeps the state and dispatches the next job, which resumes the same run in a new clone and finishes", async () => {
    // The first call hangs until it is stopped. The first job runs in this process with a clock
    // whose budget (a quarter of a minute) runs out once the agent is at work, whatever the
    // machine's speed; every other wait takes real time.
    const r = setUp({
      calls: [
        { hang: 'beforeResult', writeFiles: { 'part1.txt': 'one\n' } },
        { resultText: 'Done now.', tickFixPlan: 'all', costUsd: 0.75, writeFiles: { 'part2.txt': 'two\n' } },
      ],
    });
    r.recordPushes();
    const firstDir = r.cloneJob();
    const clock = budgetClock(15_000, () => existsSync(join(firstDir, 'part1.txt')));
    const logger = createMemoryLogger();
    const env = withoutUnset({ ...process.env, ...jobEnv(r, { name: 'issues', sender: 'owner' }) });
    const deps = { ...createDeps({ cwd: firstDir, env, clock }), logger, stdout: captureOutput(), stderr: captureOutput() };
    const firstCode = await runFleetJob(jobArgs([...JOB, '--job-minutes', '0.25']), { projectDir: firstDir, env, deps });
    expect(firstCode, logger.messages().join('\n')).toBe(0);
    expect(clock.budgetsRunOut).toBe(1);
    expect(logger.messages('WARN')).toContain("The job's time budget (0.25 min) is over: stopping the loop to continue in a new job");
    expect(originHas(r, 'ralph/issue-7-state')).toBe(true);
    expect(
      r
        .ghCalls()
        .filter((c) => c.argv[0] === 'workflow')
        .map((c) => c.argv),
    ).toEqual([['workflow', 'run', 'ralph.yml', '--ref', 'main', '-f', 'issue=7']]);
    // The state first, then the work, then (above) the next job.
    expect(r.pushes()).toEqual(['refs/heads/ralph/issue-7-state', 'refs/heads/ralph/issue-7']);
    expect(r.ghCalls().some((c) => c.argv[0] === 'pr' && c.argv[1] === 'create')).toBe(false);
    // The call cut off by the job's budget counts, its cost unknown.
    expect(commentsOn(r).at(-1)).toContain('Cost so far: $0.00 over 1 agent call, 1 of unknown cost.');
    const firstRun = runIdsOn(r, 'ralph/issue-7-state');
    expect(firstRun).toHaveLength(1);

    // A second label event meanwhile (waiting behind the job) finds the run carried on by the
    // dispatched job, pending in the group: nothing runs.
    const data = JSON.parse(readFileSync(r.ghEnv.FAKE_GH_DATA, 'utf8')) as Record<string, unknown>;
    const pending = { databaseId: 502, displayTitle: 'ralph issue #7', status: 'queued', conclusion: '', createdAt: '', updatedAt: '', url: '' };
    writeFileSync(r.ghEnv.FAKE_GH_DATA, JSON.stringify({ ...data, runs: [pending] }));
    const agentCalls = claude!.runs().length;
    const relabel = await runCli('ralph-fleet', JOB, { cwd: r.cloneJob(), env: jobEnv(r, { name: 'issues', sender: 'owner' }) });
    expect(relabel.code, relabel.stderr).toBe(0);
    expect(relabel.stderr).toContain('carried on by run 502');
    expect(claude!.runs()).toHaveLength(agentCalls);

    const dir = r.cloneJob();
    const second = await runCli('ralph-fleet', JOB, { cwd: dir, env: jobEnv(r, { name: 'workflow_dispatch' }) });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`Resuming run ${firstRun[0]}`);
    // One run record, the same run, resumed once.
    const records = readdirSync(join(dir, '.ralph', 'sessions')).filter((name) => name.endsWith('.json'));
    expect(records).toEqual([`${firstRun[0]}.json`]);
    expect((JSON.parse(readFileSync(join(dir, '.ralph', 'sessions', records[0]!), 'utf8')) as { resumes: unknown[] }).resumes).toHaveLength(1);
    for (const file of ['part1.txt', 'part2.txt'])
      expect(execFileSync('git', ['--git-dir', r.origin, 'show', `ralph/issue-7:${file}`], { encoding: 'utf8' })).not.toBe('');
    expect(r.ghCalls().filter((c) => c.argv[0] === 'pr' && c.argv[1] === 'create')).toHaveLength(1);
    expect(originHas(r, 'ralph/issue-7-state')).toBe(false);
    // The budget continued: the second job's comment tells the spend of both jobs.
    expect(commentsOn(r).at(-1)).toContain('Cost so far: $0.75 over 2 agent calls, 1 of unknown cost.');
  }, 180_000);

  it('an item ticked without measured work stays open across the job boundary: the next job opens no pull request', async () => {
    // Job 1: the agent ticks the issue's item without any work, then hangs until the job's time
    // budget ends the job. Job 2 (a new clone, a new ledger) gets the plan's memory with the state.
    const r = setUp(
      { calls: [{ resultText: 'Done, trust me.', tickFixPlan: 'all' }, { hang: 'beforeResult' }, { resultText: 'Nothing to do.' }] },
      'MAX_LOOPS=3\nCOMMENT_PROGRESS=false\n',
    );
    const firstDir = r.cloneJob();
    const clock = budgetClock(15_000, () => claude!.runs().length >= 2);
    const logger = createMemoryLogger();
    const env = withoutUnset({ ...process.env, ...jobEnv(r, { name: 'issues', sender: 'owner' }) });
    const deps = { ...createDeps({ cwd: firstDir, env, clock }), logger, stdout: captureOutput(), stderr: captureOutput() };
    expect(await runFleetJob(jobArgs([...JOB, '--job-minutes', '0.25']), { projectDir: firstDir, env, deps }), logger.messages().join('\n')).toBe(0);
    expect(logger.messages('WARN').join('\n')).toContain('1 open item ticked in a loop with no measured new content');
    expect(execFileSync('git', ['--git-dir', r.origin, 'ls-tree', '-r', '--name-only', 'ralph/issue-7-state'], { encoding: 'utf8' })).toContain(
      'ledger/plan-memory.json',
    );

    const dir = r.cloneJob();
    const second = await runCli('ralph-fleet', JOB, { cwd: dir, env: jobEnv(r, { name: 'workflow_dispatch' }) });
    expect(second.code, second.stderr).not.toBe(0);
    expect(second.stderr).toContain('1 open item ticked in a loop with no measured new content');
    expect(r.ghCalls().some((c) => c.argv[0] === 'pr' && c.argv[1] === 'create')).toBe(false);
    expect(r.ghCalls().some((c) => c.argv.join(' ') === 'issue edit 7 --add-label ralph-done')).toBe(false);
    // The memory went beside the job's ledger, not into the project.
    expect(existsSync(join(dir, 'ledger'))).toBe(false);
  }, 180_000);

  it("continuing a branch, ralph's control files come from the default branch, not from what an agent committed there", async () => {
    const r = setUp({ calls: [{ resultText: 'Added it.', tickFixPlan: 'all', writeFiles: { 'work.txt': 'work\n' } }] });
    // An earlier job's agent committed a .ralphrc whose gate can never pass.
    const earlier = r.cloneJob();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: earlier, env: { ...process.env, ...GIT_TEST_ENV } });
    git('checkout', '-q', '-b', 'ralph/issue-7');
    writeFileSync(join(earlier, '.ralphrc'), `${readFileSync(join(earlier, '.ralphrc'), 'utf8')}TEST_COMMAND="false"\n`);
    git('commit', '-qam', 'agent: tweak the gate');
    git('push', '-q', 'origin', 'ralph/issue-7');

    const run = await runCli('ralph-fleet', JOB, { cwd: r.cloneJob(), env: jobEnv(r, { name: 'workflow_dispatch' }) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(".ralphrc changed on ralph/issue-7: using main's");
    expect(r.ghCalls().filter((c) => c.argv[0] === 'pr' && c.argv[1] === 'create')).toHaveLength(1);
    const pushed = execFileSync('git', ['--git-dir', r.origin, 'show', 'ralph/issue-7:.ralphrc'], { encoding: 'utf8' });
    expect(pushed).not.toContain('TEST_COMMAND="false"');
  }, 120_000);

  it('a labeller without write access: nothing runs, nothing is pushed or posted', async () => {
    const r = setUp({ calls: [{ resultText: 'Added it.', tickFixPlan: 'all', writeFiles: { 'work.txt': 'work\n' } }] });
    const run = await runCli('ralph-fleet', JOB, { cwd: r.cloneJob(), env: jobEnv(r, { name: 'issues', sender: 'stranger' }) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("labelled by 'stranger', who has 'read' access");
    expect(claude!.runs()).toHaveLength(0);
    expect(originHas(r, 'ralph/issue-7')).toBe(false);
    expect(r.ghCalls().map((c) => (c.argv[0] === 'api' ? 'api' : `${c.argv[0]} ${c.argv[1]}`))).toEqual(['api']);
  }, 60_000);

  it("a schedule's job that finds the issue waiting for help (it ended while the job waited its turn): nothing runs", async () => {
    const r = setUp({ calls: [{ resultText: 'Added it.', tickFixPlan: 'all', writeFiles: { 'work.txt': 'work\n' } }] });
    const data = JSON.parse(readFileSync(r.ghEnv.FAKE_GH_DATA, 'utf8')) as Record<string, unknown>;
    writeFileSync(r.ghEnv.FAKE_GH_DATA, JSON.stringify({ ...data, issues: [{ ...ISSUE, labels: [{ name: 'ralph' }, { name: 'ralph-needs-help' }] }] }));
    const run = await runCli('ralph-fleet', JOB, { cwd: r.cloneJob(), env: jobEnv(r, { name: 'schedule' }) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Issue #7 is labelled ralph-needs-help');
    expect(claude!.runs()).toHaveLength(0);
    expect(r.ghCalls().some((c) => c.argv.join(' ') === 'issue edit 7 --remove-label ralph-needs-help')).toBe(false);
    expect(originHas(r, 'ralph/issue-7')).toBe(false);
  }, 60_000);

  it("fails at once, naming the secret, when the agent's credential is missing", async () => {
    const r = setUp({ calls: [] });
    const run = await runCli('ralph-fleet', JOB, {
      cwd: r.cloneJob(),
      env: { ...jobEnv(r, { name: 'workflow_dispatch' }), ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: undefined },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ANTHROPIC_API_KEY and CLAUDE_CODE_OAUTH_TOKEN are empty');
    expect(run.stderr).toContain('claude setup-token');
    expect(r.ghCalls()).toEqual([]);
  }, 60_000);
});

/** The system clock, except the waits between push attempts: recorded, and over at once. */
function retryClock(): Clock & { readonly retryWaits: number[] } {
  const retryWaits: number[] = [];
  return {
    now: systemClock.now,
    sleep: (ms, signal) => (PUSH_RETRY_DELAYS_MS.includes(ms) ? (retryWaits.push(ms), Promise.resolve()) : systemClock.sleep(ms, signal)),
    retryWaits,
  };
}

/** The job run in this process (its clock injected), as the workflow's step runs it. */
async function runJobHere(r: FleetRepo, argv: string[], extraEnv: NodeJS.ProcessEnv = {}, prepare: (dir: string) => void = () => undefined) {
  const dir = r.cloneJob();
  prepare(dir);
  const clock = retryClock();
  const logger = createMemoryLogger();
  const env = withoutUnset({ ...process.env, ...jobEnv(r, { name: 'issues', sender: 'owner' }), ...extraEnv });
  const deps = { ...createDeps({ cwd: dir, env, clock }), logger, stdout: captureOutput(), stderr: captureOutput() };
  let code: number | undefined;
  let thrown: unknown;
  try {
    code = await runFleetJob(jobArgs(argv), { projectDir: dir, env, deps });
  } catch (error) {
    thrown = error;
  }
  return { dir, clock, logger, code, thrown };
}

const ATTACK_TOKENS = [
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'RALPH_GITHUB_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_URL',
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
];

describe('ralph-fleet job never loses work', () => {
  it('a push that fails twice: tried again after the waits of the injected clock, then pushed; the job ends as it would have', async () => {
    const r = setUp({ calls: [{ resultText: 'Still thinking.', costUsd: 0.25, writeFiles: { 'half.txt': 'half\n' } }] }, 'MAX_LOOPS=1\n');
    r.failPushes(2);
    const { code, clock, logger, thrown } = await runJobHere(r, JOB);
    expect(thrown).toBeUndefined();
    expect(code).toBe(3);
    expect(clock.retryWaits).toEqual(PUSH_RETRY_DELAYS_MS.slice(0, 2));
    expect(logger.messages('WARN').filter((m) => m.startsWith('Could not push ralph/issue-7 (git push failed'))).toHaveLength(2);
    expect(r.pushes()).toEqual(['refs/heads/ralph/issue-7', 'refs/heads/ralph/issue-7', 'refs/heads/ralph/issue-7']);
    expect(execFileSync('git', ['--git-dir', r.origin, 'show', 'ralph/issue-7:half.txt'], { encoding: 'utf8' })).toBe('half\n');
    expect(commentsOn(r).at(-1)).toMatch(/stopped at a limit \(max_loops_reached\)/);
  }, 120_000);

  it("a push that keeps failing: the issue says what failed, what was kept (the commits as a bundle in the artifact) and how to resume; never 'internal error'", async () => {
    const r = setUp({ calls: [{ resultText: 'Still thinking.', costUsd: 0.25, writeFiles: { 'half.txt': 'half\n' } }] }, 'MAX_LOOPS=1\n');
    r.failPushes(99);
    const runnerTemp = join(r.root, 'runner-temp');
    // The job's own temp folder for this test: what the job leaves there would be left on a runner.
    const jobTemp = join(r.root, 'job-temp');
    mkdirSync(jobTemp);
    vi.stubEnv('TMPDIR', jobTemp);
    const { code, clock, logger, thrown } = await runJobHere(r, JOB, { RUNNER_TEMP: runnerTemp }).finally(() => vi.unstubAllEnvs());
    expect(thrown).toBeUndefined();
    expect(code).toBe(1);
    expect(clock.retryWaits).toEqual(PUSH_RETRY_DELAYS_MS);
    expect(logger.messages().join('\n')).not.toMatch(/internal error/i);
    const report = commentsOn(r).at(-1)!;
    expect(report).toContain("ralph's job stopped before it could finish: the job's work could not be pushed to `ralph/issue-7`.");
    expect(report).toContain("- the job's commits as `work.bundle` in the job's artifact");
    expect(report).toContain('git fetch <artifact>/work.bundle HEAD && git push origin FETCH_HEAD:refs/heads/ralph/issue-7');
    expect(report).toContain('Cost so far: $0.25 over 1 agent call.');
    expect(r.ghCalls().some((c) => c.argv.join(' ') === 'issue edit 7 --add-label ralph-needs-help')).toBe(true);
    // The bundle holds the work: fetched into a clone of origin, it has the file.
    const bundle = join(runnerTemp, 'ralph-artifact', 'work.bundle');
    const check = r.cloneJob();
    execFileSync('git', ['fetch', '-q', bundle, 'HEAD'], { cwd: check });
    expect(execFileSync('git', ['show', 'FETCH_HEAD:half.txt'], { cwd: check, encoding: 'utf8' })).toBe('half\n');
    // The bundle's folder is gone once the artifact holds its copy.
    expect(readdirSync(runnerTemp)).toEqual(['ralph-artifact']);
    // (ralph's snapshot of the user's git settings lives as long as this process: its exit removes it.)
    expect(readdirSync(jobTemp).filter((name) => !name.startsWith(`ralph-git-${process.pid}-`))).toEqual([]);
  }, 120_000);
});

describe('ralph-fleet job fails in words', () => {
  it('finished work that cannot be pushed: no pull request, no ralph-done; the state is kept and the issue says how to resume', async () => {
    const r = setUp({ calls: [{ resultText: 'Added it.', tickFixPlan: 'all', costUsd: 0.5, writeFiles: { 'work.txt': 'work\n' } }] });
    r.failPushes(99);
    // A hard link to a runner file left under .ralph/: the state branch does not carry it to origin.
    writeFileSync(join(r.root, 'runner-secret.txt'), 'secret\n');
    const plant = (dir: string) => linkSync(join(r.root, 'runner-secret.txt'), join(dir, '.ralph', 'hard-link.txt'));
    const { code, thrown } = await runJobHere(r, JOB, { RUNNER_TEMP: join(r.root, 'runner-temp') }, plant);
    expect(thrown).toBeUndefined();
    expect(code).toBe(1);
    expect(r.ghCalls().some((c) => c.argv[0] === 'pr' && c.argv[1] === 'create')).toBe(false);
    expect(r.ghCalls().some((c) => c.argv.join(' ') === 'issue edit 7 --add-label ralph-done')).toBe(false);
    expect(originHas(r, 'ralph/issue-7-state')).toBe(true);
    const carried = execFileSync('git', ['--git-dir', r.origin, 'ls-tree', '-r', '--name-only', 'ralph/issue-7-state'], { encoding: 'utf8' });
    expect(carried).toContain('.ralph/sessions/');
    expect(carried).not.toContain('hard-link.txt');
    const report = commentsOn(r).at(-1)!;
    expect(report).toContain("- the run's state on branch `ralph/issue-7-state`");
    expect(report).toContain("- the job's commits as `work.bundle` in the job's artifact");
    expect(existsSync(join(r.root, 'runner-temp', 'ralph-artifact', 'work.bundle'))).toBe(true);
  }, 120_000);

  it("a state that cannot be saved at the job's time budget: the work is still pushed, no next job, the issue says so", async () => {
    const r = setUp({ calls: [{ hang: 'beforeResult', writeFiles: { 'part1.txt': 'one\n' } }] });
    r.failPushes(99, 'state');
    const dir = r.cloneJob();
    const budget = budgetClock(15_000, () => existsSync(join(dir, 'part1.txt')));
    const retryWaits: number[] = [];
    const clock: Clock = {
      now: budget.now,
      sleep: (ms, signal) => (PUSH_RETRY_DELAYS_MS.includes(ms) ? (retryWaits.push(ms), Promise.resolve()) : budget.sleep(ms, signal)),
    };
    const logger = createMemoryLogger();
    const env = withoutUnset({ ...process.env, ...jobEnv(r, { name: 'issues', sender: 'owner' }) });
    const deps = { ...createDeps({ cwd: dir, env, clock }), logger, stdout: captureOutput(), stderr: captureOutput() };
    const code = await runFleetJob(jobArgs([...JOB, '--job-minutes', '0.25']), { projectDir: dir, env, deps });
    expect(code, logger.messages().join('\n')).toBe(1);
    expect(retryWaits).toEqual(PUSH_RETRY_DELAYS_MS);
    expect(execFileSync('git', ['--git-dir', r.origin, 'show', 'ralph/issue-7:part1.txt'], { encoding: 'utf8' })).toBe('one\n');
    expect(originHas(r, 'ralph/issue-7-state')).toBe(false);
    expect(r.ghCalls().some((c) => c.argv[0] === 'workflow')).toBe(false);
    const report = commentsOn(r).at(-1)!;
    expect(report).toContain("ralph's job stopped before it could finish: the run's state could not be saved to `ralph/issue-7-state`");
    expect(report).toContain("- the job's work on branch `ralph/issue-7`");
  }, 120_000);

  it('origin out of reach once the issue is taken: the issue says what failed and how to resume; the error names it, never "internal error"', async () => {
    const r = setUp({ calls: [{ resultText: 'Added it.', tickFixPlan: 'all', writeFiles: { 'work.txt': 'work\n' } }] });
    const dir = r.cloneJob();
    renameSync(r.origin, `${r.origin}.gone`);
    const run = await runCli('ralph-fleet', JOB, { cwd: dir, env: jobEnv(r, { name: 'workflow_dispatch' }) });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/internal error/i);
    expect(run.stderr).toContain('The job of issue #7 failed: git ls-remote origin failed');
    expect(run.stderr).toContain('the issue has a comment saying what was kept and how to resume');
    const report = commentsOn(r).at(-1)!;
    expect(report).toContain("ralph's job stopped before it could finish: git ls-remote origin failed");
    expect(report).toContain("- the branch `ralph/issue-7` and the run's state on origin as the last job left them");
    expect(report).toContain('To resume: `ralph-fleet start 7`.');
    expect(claude!.runs()).toHaveLength(0);
  }, 120_000);
});

describe('ralph-fleet job against a hostile agent', () => {
  it("the agent's environment, and the gate's that runs its code, hold none of the job's tokens or step files", async () => {
    // The gate's command writes its environment beside the clone.
    const r = setUp(
      { calls: [{ resultText: 'Added it.', tickFixPlan: 'all', writeFiles: { 'work.txt': 'work\n' } }] },
      'TEST_COMMAND="env > ../gate-env.txt; echo checked"\n',
    );
    const tokens = Object.fromEntries(ATTACK_TOKENS.map((name) => [name, `value-of-${name}`]));
    const run = await runCli('ralph-fleet', JOB, {
      cwd: r.cloneJob(),
      env: {
        ...jobEnv(r, { name: 'issues', sender: 'owner' }),
        ...tokens,
        FLEET_CANARY: 'seen',
        FAKE_CLAUDE_LOG_ENV: [...ATTACK_TOKENS, 'FLEET_CANARY'].join(','),
      },
    });
    expect(run.code, run.stderr).toBe(0);
    const env = claude!.runs()[0]!.env;
    expect(env.FLEET_CANARY).toBe('seen');
    for (const name of ATTACK_TOKENS) expect(env[name], name).toBeUndefined();
    const gateEnv = readFileSync(join(r.root, 'gate-env.txt'), 'utf8');
    expect(gateEnv).toContain('FLEET_CANARY=seen');
    for (const name of ATTACK_TOKENS) expect(gateEnv, name).not.toMatch(new RegExp(`^${name}=`, 'm'));
    // ralph itself still had the token for its own gh calls: the pull request was opened.
    expect(r.ghCalls().some((c) => c.argv[0] === 'pr' && c.argv[1] === 'create')).toBe(true);
  }, 120_000);

  it("what the agent commits under .github/ is held back and listed on the issue; its commits are folded into the job's one", async () => {
    const agentWork = {
      resultText: 'Added it.',
      tickFixPlan: 'all' as const,
      writeFiles: { 'work.txt': 'work\n', '.github/workflows/ci.yml': 'on: push\njobs: {}\n' },
      gitAdd: true,
      gitCommit: 'agent: add ci',
    };
    const r = setUp({ calls: [agentWork] });
    const run = await runCli('ralph-fleet', JOB, { cwd: r.cloneJob(), env: jobEnv(r, { name: 'issues', sender: 'owner' }) });
    expect(run.code, run.stderr).toBe(0);
    const tree = execFileSync('git', ['--git-dir', r.origin, 'ls-tree', '-r', '--name-only', 'ralph/issue-7'], { encoding: 'utf8' });
    expect(tree).toContain('work.txt');
    expect(tree).not.toContain('.github/workflows/ci.yml');
    expect(execFileSync('git', ['--git-dir', r.origin, 'log', '--format=%s', 'main..ralph/issue-7'], { encoding: 'utf8' })).toBe('Fix #7: Add the work file\n');
    expect(commentsOn(r).at(-1)).toContain(
      'Held back (the agent changed files under `.github/`, which a job pushes only when the workflow was written with `ralph-fleet init --allow-workflow-changes`): `.github/workflows/ci.yml`.',
    );

    // With the opt-in, they are pushed.
    const allowed = setUp({ calls: [agentWork] });
    const opted = await runCli('ralph-fleet', [...JOB, '--allow-workflow-changes'], {
      cwd: allowed.cloneJob(),
      env: jobEnv(allowed, { name: 'issues', sender: 'owner' }),
    });
    expect(opted.code, opted.stderr).toBe(0);
    expect(execFileSync('git', ['--git-dir', allowed.origin, 'show', 'ralph/issue-7:.github/workflows/ci.yml'], { encoding: 'utf8' })).toBe(
      'on: push\njobs: {}\n',
    );
  }, 180_000);

  it("the agent's own git cannot carry a workflow, a commit or a tag of its own into what the job pushes", async () => {
    const plant = [
      // The clone matches names whatever their case: git's add would file .GITHUB/workflows/ under the index's .github/workflows/.
      'mkdir -p .GITHUB/workflows',
      "printf 'on: push\\n' > .GITHUB/workflows/leak.yml",
      // A commit of its own holding a workflow run by tags, with a tag on it, left as a merge in progress.
      'mkdir -p .github/workflows',
      'printf \'on: { push: { tags: ["*"] } }\\n\' > .github/workflows/tagged.yml',
      'git add .github/workflows/tagged.yml',
      'git commit -q -m agent -- .github/workflows/tagged.yml',
      'git tag -a v9.9.9 -m release',
      'git reset -q --soft HEAD~1',
      'git rm -q --cached .github/workflows/tagged.yml',
      'rm .github/workflows/tagged.yml',
      // A branch of its choosing checked out, which a push there would run the workflows of.
      'git checkout -q -b release/v2',
      'git rev-parse v9.9.9^{commit} > .git/MERGE_HEAD',
    ];
    const r = setUp(
      {
        calls: [
          {
            steps: [{ tool: 'Bash', input: { command: 'sh ../plant.sh' }, exec: true }],
            resultText: 'Added it.',
            tickFixPlan: 'all',
            writeFiles: { 'work.txt': 'work\n' },
          },
        ],
      },
      'ALLOWED_TOOLS="Write,Read,Edit,Bash(sh *)"\n',
    );
    writeFileSync(join(r.root, 'plant.sh'), `set -e\n${plant.join('\n')}\n`);
    // A project with a workflow (a fleet's has one): the index holds .github/workflows/.
    const seed = r.cloneJob();
    const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_TEST_ENV } });
    mkdirSync(join(seed, '.github', 'workflows'), { recursive: true });
    writeFileSync(join(seed, '.github', 'workflows', 'ralph.yml'), 'on: issues\n');
    git(seed, 'add', '.github');
    git(seed, 'commit', '-qm', 'the fleet workflow');
    git(seed, 'push', '-q', 'origin', 'main');
    // Settings the job finds (a runner's or a user's own), which the agent's config writes could not add: those are undone.
    const dir = r.cloneJob();
    git(dir, 'config', 'core.ignoreCase', 'true');
    git(dir, 'config', 'push.followTags', 'true');

    const run = await runCli('ralph-fleet', JOB, { cwd: dir, env: jobEnv(r, { name: 'issues', sender: 'owner' }) });
    expect(run.code, run.stderr).toBe(0);
    const refs = execFileSync('git', ['--git-dir', r.origin, 'for-each-ref', '--format=%(refname)'], { encoding: 'utf8' });
    expect(refs.split('\n').filter(Boolean)).toEqual(['refs/heads/main', 'refs/heads/ralph/issue-7']);
    const tree = execFileSync('git', ['--git-dir', r.origin, 'ls-tree', '-r', '--name-only', 'ralph/issue-7'], { encoding: 'utf8' }).split('\n');
    expect(tree).toContain('work.txt');
    expect(tree.filter((path) => path.toLowerCase().startsWith('.github/'))).toEqual(['.github/workflows/ralph.yml']);
    expect(commentsOn(r).at(-1)).toContain('`.GITHUB/workflows/leak.yml`');
    expect(execFileSync('git', ['--git-dir', r.origin, 'rev-list', 'main..ralph/issue-7'], { encoding: 'utf8' }).trim().split('\n')).toHaveLength(1);
  }, 180_000);

  it('the artifact gets regular files only: a link (soft or hard) left under .ralph/logs is not followed or copied', async () => {
    const r = setUp({ calls: [{ resultText: 'Added it.', tickFixPlan: 'all', writeFiles: { 'work.txt': 'work\n' } }] });
    const dir = r.cloneJob();
    mkdirSync(join(dir, '.ralph', 'logs'), { recursive: true });
    writeFileSync(join(r.root, 'runner-secret.txt'), 'secret\n');
    symlinkSync(join(r.root, 'runner-secret.txt'), join(dir, '.ralph', 'logs', 'leak.log'));
    linkSync(join(r.root, 'runner-secret.txt'), join(dir, '.ralph', 'logs', 'hard.log'));
    const runnerTemp = join(r.root, 'runner-temp');
    const run = await runCli('ralph-fleet', JOB, { cwd: dir, env: { ...jobEnv(r, { name: 'issues', sender: 'owner' }), RUNNER_TEMP: runnerTemp } });
    expect(run.code, run.stderr).toBe(0);
    const staged = listTree(join(runnerTemp, 'ralph-artifact'));
    expect(staged.some((file) => file.startsWith('.ralph/logs/'))).toBe(true);
    expect(staged).toContain('.ralph/status.json');
    expect(staged).not.toContain('.ralph/logs/leak.log');
    expect(staged).not.toContain('.ralph/logs/hard.log');
    for (const file of staged) expect(lstatSync(join(runnerTemp, 'ralph-artifact', file)).isFile(), file).toBe(true);
  }, 120_000);

  it("a schedule's or a dispatch's job on an issue labelled by someone without write access: nothing runs", async () => {
    for (const event of [{ name: 'schedule' as const }, { name: 'workflow_dispatch' as const }]) {
      const r = setUp({ calls: [{ resultText: 'Added it.', tickFixPlan: 'all', writeFiles: { 'work.txt': 'work\n' } }] });
      const data = JSON.parse(readFileSync(r.ghEnv.FAKE_GH_DATA, 'utf8')) as Record<string, unknown>;
      // The owner labelled it once; a triager removed and added it again: the last labeller counts.
      writeFileSync(
        r.ghEnv.FAKE_GH_DATA,
        JSON.stringify({
          ...data,
          timeline: { 7: [labelledBy('owner'), { event: 'unlabeled', actor: { login: 'triager' }, label: { name: 'ralph' } }, labelledBy('triager')] },
        }),
      );
      const run = await runCli('ralph-fleet', JOB, { cwd: r.cloneJob(), env: jobEnv(r, event) });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain("Issue #7 was labelled by 'triager', who has 'triage' access; only people with write access start ralph. Nothing was run.");
      expect(claude!.runs()).toHaveLength(0);
      expect(originHas(r, 'ralph/issue-7')).toBe(false);
      expect(commentsOn(r)).toEqual([]);
    }
  }, 120_000);
});

function listTree(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return lstatSync(path).isDirectory() ? listTree(path, `${prefix}${name}/`) : [`${prefix}${name}`];
  });
}

function commentsOn(r: FleetRepo): string[] {
  return r
    .ghCalls()
    .filter((c) => c.argv[0] === 'issue' && c.argv[1] === 'comment')
    .map((c) => c.stdin ?? '');
}

// The run ids whose records the state branch holds.
function runIdsOn(r: FleetRepo, branch: string): string[] {
  const names = execFileSync('git', ['--git-dir', r.origin, 'ls-tree', '--name-only', `${branch}:.ralph/sessions`], { encoding: 'utf8' });
  return names
    .split('\n')
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.replace(/\.json$/, ''));
}
