// `ralph --github-issue` through ralph's loop (in the test's process), a fake claude and a fake gh that records
// every argv and stdin, with a local bare repository as origin: a progress comment at loop 5,
// then on completion the summary, the push, a draft PR linking the issue, the follow-up for an
// added TODO, the labels and the close. A halted run posts nothing on completion, hostile issue
// text stays data, and a gh failure is a warning that leaves the exit code alone.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCallScript } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { runRalphInProcess } from '../helpers/ralph-in-process.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { withFakeTaskClis, type FakeGhCall, type FakeGhData } from '../integration/bootstrap/fake-task-clis.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

interface Setup {
  project: TmpProject;
  origin: string;
  run(args: string[]): Promise<CliResult>;
  gh(): FakeGhCall[];
}

/** A git project on a feature branch with a bare `origin`, the fake claude and the fake gh on PATH. */
function setUp(plan: string, calls: FakeCallScript[], gh: FakeGhData): Setup {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\n`, '.ralph/fix_plan.md': plan }), { git: true });
  cleanups.push(() => project.cleanup());
  const originRoot = mkdtempSync(join(tmpdir(), 'ralph-origin-'));
  cleanups.push(() => rmSync(originRoot, { recursive: true, force: true }));
  const origin = join(originRoot, 'origin.git');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
  project.git('remote', 'add', 'origin', origin);
  project.git('push', '-q', '-u', 'origin', 'main');
  project.git('checkout', '-q', '-b', 'ralph/issue-42');
  const fake = withFakeClaude({ calls });
  cleanups.push(() => fake.cleanup());
  const clis = withFakeTaskClis({ gh });
  cleanups.push(() => clis.cleanup());
  const env = {
    ...fake.env,
    ...GIT_TEST_ENV,
    FAKE_GH_DATA: clis.env.FAKE_GH_DATA!,
    FAKE_GH_LOG: clis.env.FAKE_GH_LOG!,
    PATH: [clis.binDir, fake.env.PATH].join(delimiter),
  };
  return {
    project,
    origin,
    // A run's loop in this process (tests/helpers/ralph-in-process.ts); another action, the command.
    run: (args) => (args.includes('--status') ? runCli('ralph', args, { cwd: project.dir, env }) : runRalphInProcess(project.dir, args, env)),
    gh: () => clis.ghCallsWithInput(),
  };
}

const FIVE_TASKS = '# Plan\n- [ ] one\n- [ ] two\n- [ ] three\n- [ ] four\n- [ ] five\n';
const tick = (n: number, extra: Partial<FakeCallScript> = {}): FakeCallScript => ({
  resultText: `Did task ${n}.`,
  tickFixPlan: 1,
  writeFiles: { [`work/${n}.txt`]: `task ${n}\n` },
  gitCommit: `task ${n}`,
  ...extra,
});
const ALL_FLAGS = [
  '--github-issue',
  '42',
  '--comment-progress',
  '--comment-interval',
  '5',
  '--close-summary',
  '--create-pr',
  '--draft-pr',
  '--link-issue',
  '--create-followups',
  '--add-label',
  'ralph-done',
  '--add-label',
  'needs-review',
  '--auto-close',
  '--max-loops',
  '10',
];
const argvOf = (calls: FakeGhCall[]) => calls.map((call) => call.argv.slice(0, 2).join(' '));

describe('ralph --github-issue', () => {
  it('comments at loop 5, then on completion: summary, push, draft PR closing #42, follow-up, labels, close', async () => {
    const s = setUp(
      FIVE_TASKS,
      [tick(1), tick(2), tick(3, { writeFiles: { 'src/a.ts': 'export const a = 1; // TODO: handle the empty case\n' } }), tick(4), tick(5)],
      { issues: [{ number: 42, title: 'Add the widget' }], prUrl: 'https://github.com/fake/repo/pull/7' },
    );
    const run = await s.run(ALL_FLAGS);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('WARN');

    const calls = s.gh();
    expect(argvOf(calls)).toEqual(['issue view', 'issue comment', 'issue comment', 'repo view', 'pr create', 'issue create', 'issue edit', 'issue close']);
    const [view, progress, summary, , pr, followUp, labels, close] = calls;
    expect(view!.argv).toEqual(['issue', 'view', '42', '--json', 'title']);
    expect(progress!.argv).toEqual(['issue', 'comment', '42', '--body-file', '-']);
    expect(progress!.stdin).toContain('loop #5');
    expect(progress!.stdin).toContain('**Tasks:** 5 completed, 0 remaining');
    expect(progress!.stdin).toContain('- `src/a.ts`');
    expect(summary!.stdin).toContain('## ✅ Ralph completed development');
    expect(summary!.stdin).toContain('- [x] one');
    expect(summary!.stdin).toMatch(/5 files changed, 5 insertions\(\+\)/);

    expect(pr!.argv).toEqual(['pr', 'create', '--title', 'Add the widget', '--body-file', '-', '--draft']);
    expect(pr!.stdin).toContain('## ✅ Ralph completed development');
    expect(pr!.stdin).toMatch(/\n\nCloses #42\n?$/);
    // The branch was pushed to origin before the PR was opened.
    const head = s.project.git('rev-parse', 'HEAD').trim();
    expect(execFileSync('git', ['--git-dir', s.origin, 'rev-parse', 'refs/heads/ralph/issue-42'], { encoding: 'utf8' }).trim()).toBe(head);

    expect(followUp!.argv).toEqual(['issue', 'create', '--title', 'Follow-up: TODOs from #42', '--body-file', '-', '--label', 'tech-debt']);
    expect(followUp!.stdin).toContain('- src/a.ts: TODO: handle the empty case');
    expect(labels!.argv).toEqual(['issue', 'edit', '42', '--add-label', 'ralph-done', '--add-label', 'needs-review']);
    expect(close!.argv).toEqual(['issue', 'close', '42']);

    const state = JSON.parse(readFileSync(s.project.path('.ralph/.github_lifecycle_state'), 'utf8'));
    expect(state.issue).toEqual({ number: 42, repo: '', title: 'Add the widget' });
    expect(state.lifecycle).toMatchObject({
      progress_comments_posted: 1,
      pr_created: true,
      pr_url: 'https://github.com/fake/repo/pull/7',
      issue_closed: true,
      followups_created: ['https://github.com/fake/repo/issues/43'],
    });
    expect(state.lifecycle.completion_detected_at).toEqual(expect.any(String));

    const status = JSON.parse((await s.run(['--status', '--json'])).stdout);
    expect(status.github_lifecycle.issue.title).toBe('Add the widget');
    expect(status.github_lifecycle.lifecycle.pr_url).toBe('https://github.com/fake/repo/pull/7');
    const frame = (await runCli('ralph-monitor', ['--once'], { cwd: s.project.dir, env: { COLUMNS: '160', LINES: '80' } })).stdout;
    expect(frame).toContain('#42 Add the widget');
    expect(frame).toContain('progress comments 1 · PR https://github.com/fake/repo/pull/7 · follow-ups 1 · closed');
  });

  it('a halted run (circuit breaker open) posts nothing on completion', async () => {
    const idle: FakeCallScript = { resultText: 'Thinking.', statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } };
    const s = setUp(FIVE_TASKS, [idle, idle, idle, idle, idle], { issues: [{ number: 42, title: 'Add the widget' }] });
    const run = await s.run(ALL_FLAGS);
    expect(run.code, run.stderr).toBe(2);
    expect(argvOf(s.gh())).toEqual(['issue view']);
    const state = JSON.parse(readFileSync(s.project.path('.ralph/.github_lifecycle_state'), 'utf8'));
    expect(state.lifecycle).toMatchObject({ completion_detected_at: null, pr_created: false, issue_closed: false, progress_comments_posted: 0 });
    expect(() => execFileSync('git', ['--git-dir', s.origin, 'rev-parse', '--verify', '-q', 'refs/heads/ralph/issue-42'])).toThrow();
  });

  it('hostile issue text stays data: the title is the value after --title, bodies go on stdin, nothing runs', async () => {
    const title = '--help $(touch pwned) `touch pwned2`\nsecond line';
    const s = setUp('- [ ] one\n', [tick(1, { writeFiles: { 'src/b.ts': '// TODO: $(touch pwned3) `touch pwned4` --force\n' } })], {
      issues: [{ number: 42, title, body: '$(touch pwned5)' }],
    });
    const run = await s.run([
      '--github-issue',
      'https://github.com/o-x/r.y/issues/42',
      '--close-summary',
      '--create-pr',
      '--create-followups',
      '--followup-label=--x $(touch pwned6)',
      '--max-loops',
      '3',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const calls = s.gh();
    expect(argvOf(calls)).toEqual(['issue view', 'issue comment', 'repo view', 'pr create', 'issue create']);
    for (const call of calls) expect(call.argv.slice(-2)).toEqual(call.argv[0] === 'repo' ? ['--json', 'defaultBranchRef'] : ['--repo', 'o-x/r.y']);
    expect(calls[2]!.argv).toEqual(['repo', 'view', 'o-x/r.y', '--json', 'defaultBranchRef']);
    expect(calls[3]!.argv.slice(0, 4)).toEqual(['pr', 'create', '--title', '--help $(touch pwned) `touch pwned2` second line']);
    expect(calls[4]!.argv).toContain('--x $(touch pwned6)');
    expect(calls[4]!.argv[calls[4]!.argv.indexOf('--x $(touch pwned6)') - 1]).toBe('--label');
    expect(calls[4]!.stdin).toContain('- src/b.ts: TODO: $(touch pwned3) `touch pwned4` --force');
    for (const name of ['pwned', 'pwned2', 'pwned3', 'pwned4', 'pwned5', 'pwned6']) expect(existsSync(s.project.path(name)), name).toBe(false);
  });

  it("a gh failure is one warning with gh's message; the run still exits 0 and the later steps run", async () => {
    const s = setUp('- [ ] one\n', [tick(1)], {
      issues: [{ number: 42, title: 'Add the widget' }],
      failOn: { 'pr create': 'pull request create failed: GraphQL: Resource not accessible by integration (createPullRequest)' },
    });
    const run = await s.run(['--github-issue', '#42', '--create-pr', '--auto-close', '--max-loops', '3']);
    expect(run.code, run.stderr).toBe(0);
    const warnings = run.stderr.split('\n').filter((line) => line.includes('WARN'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      'Could not create the pull request: gh pr create failed: pull request create failed: GraphQL: Resource not accessible by integration',
    );
    expect(argvOf(s.gh())).toEqual(['issue view', 'repo view', 'pr create', 'issue close']);
  });

  it('skips the pull request on the default branch with a warning, and never pushes it', async () => {
    const s = setUp('- [ ] one\n', [tick(1)], { issues: [{ number: 42, title: 'Add the widget' }] });
    s.project.git('checkout', '-q', 'main');
    const before = execFileSync('git', ['--git-dir', s.origin, 'rev-parse', 'refs/heads/main'], { encoding: 'utf8' });
    const run = await s.run(['--github-issue', '42', '--create-pr', '--max-loops', '3']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("Skipping the pull request: 'main' is the default branch");
    expect(argvOf(s.gh())).toEqual(['issue view', 'repo view']);
    expect(execFileSync('git', ['--git-dir', s.origin, 'rev-parse', 'refs/heads/main'], { encoding: 'utf8' })).toBe(before);
  });

  it('never pushes a branch origin already has that the agent checked out and built on, and still pushes one it made', async () => {
    const checkout = (command: string): Partial<FakeCallScript> => ({ steps: [{ tool: 'Bash', input: { command }, exec: true }] });
    const s = setUp('- [ ] one\n', [tick(1, checkout('git fetch -q origin release/v2 && git checkout -q -B release/v2 FETCH_HEAD'))], {
      issues: [{ number: 42, title: 'Add the widget' }],
    });
    s.project.git('push', '-q', 'origin', 'main:refs/heads/release/v2');
    writeFileSync(s.project.path('.ralphrc'), `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\nALLOWED_TOOLS=Bash\n`);
    const before = execFileSync('git', ['--git-dir', s.origin, 'rev-parse', 'refs/heads/release/v2'], { encoding: 'utf8' });
    const run = await s.run(['--github-issue', '42', '--create-pr', '--max-loops', '3']);
    expect(run.code, run.stderr).toBe(0);
    expect(s.project.git('symbolic-ref', '--short', 'HEAD').trim()).toBe('release/v2');
    expect(run.stderr).toContain("Skipping the pull request: HEAD names 'release/v2', which origin already has, and the run started on 'ralph/issue-42'");
    expect(execFileSync('git', ['--git-dir', s.origin, 'rev-parse', 'refs/heads/release/v2'], { encoding: 'utf8' })).toBe(before);
    expect(argvOf(s.gh())).not.toContain('pr create');

    const made = setUp('- [ ] one\n', [tick(1, checkout('git checkout -q -b feature/widget'))], { issues: [{ number: 42, title: 'Add the widget' }] });
    writeFileSync(made.project.path('.ralphrc'), `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\nALLOWED_TOOLS=Bash\n`);
    const pushed = await made.run(['--github-issue', '42', '--create-pr', '--max-loops', '3']);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(execFileSync('git', ['--git-dir', made.origin, 'rev-parse', 'refs/heads/feature/widget'], { encoding: 'utf8' }).trim()).toBe(
      made.project.git('rev-parse', 'HEAD').trim(),
    );
  });

  it.each([
    [['--github-issue', 'octo#1'], "--github-issue: 'octo#1' is not an issue reference"],
    [['--github-issue', '42', '--comment-interval', '0'], '--comment-interval: expected a whole number from 1 to 10000, got "0"'],
    [['--github-issue', '42', '--add-label'], '--add-label requires a label'],
  ])('refuses %j at start with exit 1, before any agent or gh call', async (args, message) => {
    const s = setUp('- [ ] one\n', [tick(1)], { issues: [{ number: 42, title: 'x' }] });
    const run = await s.run(args);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(s.gh()).toEqual([]);
  });
});
