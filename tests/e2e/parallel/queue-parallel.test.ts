// `ralph-queue process --parallel N` end to end, with the real bin/ralph-queue, real git, the
// fake `claude` and the fake `gh`: ready items side by side in worktrees, merged back through
// the merge queue and completed in the queue file; an item that depends on another starts from
// the branch once the other has merged; a halted item failed with its branch kept while the
// others merge; Ctrl-C puts the running items back to pending and a second run finishes them;
// the flag checked and in --help.

import { existsSync, readFileSync, rmSync } from 'node:fs';
import { delimiter } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessRunning as isAlive } from '../../helpers/process-state.js';
import { queueInProcess } from '../../helpers/queue-in-process.js';
import { runCli } from '../../helpers/run-cli.js';
import { withFakeTaskClis, type FakeIssue, type FakeTaskClis } from '../../integration/bootstrap/fake-task-clis.js';
import { doesItem, HANGS, interruptWithAgentsInFlight, LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';
import type { FakeScenario } from '../../helpers/fake-claude.js';

let p: ParallelProject | undefined;
let clis: FakeTaskClis | undefined;
afterEach(() => {
  p?.cleanup();
  clis?.cleanup();
});

const PRDS = { 'prd/alpha.md': '# Alpha\n\nAdd alpha.txt.\n', 'prd/beta.md': '# Beta\n\nAdd beta.txt.\n', 'prd/gamma.md': '# Gamma\n\nAdd gamma.txt.\n' };

/** A project with three PRD files committed and queued, the fake agent running `scenario`. */
async function prdQueue(scenario: FakeScenario, rc = ''): Promise<ParallelProject> {
  p = parallelProject([], scenario, { files: PRDS, rc });
  for (const file of Object.keys(PRDS)) {
    const add = await queueInProcess(p.project.dir, ['add', '--prd', file], p.env);
    expect(add.code, add.stderr).toBe(0);
  }
  return p;
}

function queueItems(project: ParallelProject): Array<Record<string, unknown>> {
  return (JSON.parse(readFileSync(project.project.path('.ralph/queue.json'), 'utf8')) as { queue: Array<Record<string, unknown>> }).queue;
}

const spec = (name: string) => `Implement spec ${name}`;

describe('ralph-queue process --parallel', () => {
  it(
    'runs three independent items side by side, merges each, marks them completed, and leaves no worktree (saying so when .ralphrc asks ralph --parallel for pull requests)',
    async () => {
      const q = await prdQueue(
        {
          calls: [
            doesItem(spec('alpha.md'), { 'alpha.txt': 'alpha\n' }),
            doesItem(spec('beta.md'), { 'beta.txt': 'beta\n' }),
            doesItem(spec('gamma.md'), { 'gamma.txt': 'gamma\n' }),
          ],
        },
        'PARALLEL_LAND=pr\n',
      );
      const run = await runCli('ralph-queue', ['process', '--parallel', '3'], { cwd: q.project.dir, env: q.env });
      expect(run.code, run.stderr).toBe(0);
      expect(q.project.git('show', 'HEAD:alpha.txt')).toBe('alpha\n');
      expect(q.project.git('show', 'HEAD:beta.txt')).toBe('beta\n');
      expect(q.project.git('show', 'HEAD:gamma.txt')).toBe('gamma\n');
      expect(queueItems(q).map((item) => [item.title, item.status])).toEqual([
        ['alpha.md', 'completed'],
        ['beta.md', 'completed'],
        ['gamma.md', 'completed'],
      ]);
      expect(q.worktrees()).toEqual([]);
      expect(q.branches()).toEqual(['main']);
      // Each agent ran in its own worktree, with the item's spec beside its one-task plan.
      const cwds = q.claude.runs().map((c) => c.cwd);
      expect(new Set(cwds).size).toBe(3);
      expect(cwds.every((cwd) => cwd.includes('.ralph/worktrees/'))).toBe(true);
      // The project's own plan is not the queue's: untouched.
      expect(q.plan()).toBe('# Fix Plan\n\n## Tasks\n\n');
      expect(run.stderr).toContain('Queue run finished: 3 completed');
      expect(run.stderr).toContain('PARALLEL_LAND=pr is for ralph --parallel: ralph-queue process --parallel merges each item into main here');
    },
    LONG,
  );

  it(
    'starts an item that depends on another only after the other has merged, from the branch with its work',
    async () => {
      const issues: FakeIssue[] = [
        { number: 1, title: 'One', body: 'Add one.txt.' },
        { number: 2, title: 'Two', body: 'Depends on #1' },
      ];
      p = parallelProject([], {
        calls: [doesItem('Implement GitHub issue #1: One', { 'one.txt': 'one\n' }), doesItem('Implement GitHub issue #2: Two', { 'two.txt': 'two\n' })],
      });
      clis = withFakeTaskClis({ gh: { issues } });
      const fakeGh = Object.fromEntries(Object.entries(clis.env).filter(([key]) => key.startsWith('FAKE_GH')));
      const env = { ...p.env, ...fakeGh, PATH: [clis.binDir, p.env.PATH].join(delimiter) };
      const add = await queueInProcess(p.project.dir, ['add', '2', '1'], env);
      expect(add.code, add.stderr).toBe(0);

      const run = await runCli('ralph-queue', ['process', '--parallel', '2'], { cwd: p.project.dir, env });
      expect(run.code, run.stderr).toBe(0);
      expect(queueItems(p).map((item) => [item.issue_number, item.status])).toEqual([
        [2, 'completed'],
        [1, 'completed'],
      ]);
      // #2 branched from main once #1 was merged: its work sits on top of #1's, and merging it
      // was a fast-forward (a unit started beside #1 would have needed a merge commit).
      expect(p.project.git('log', '--format=%s', 'main').trim().split('\n').slice(0, 2)).toEqual([
        'ralph: Implement GitHub issue #2: Two',
        'ralph: Implement GitHub issue #1: One',
      ]);
      expect(p.project.git('rev-list', '--merges', 'main').trim()).toBe('');
      // The one agent run of #2 came after the one of #1.
      expect(p.claude.runs().map((c) => /issue-(\d)-/.exec(c.cwd)?.[1])).toEqual(['1', '2']);
      expect(p.worktrees()).toEqual([]);
    },
    LONG,
  );

  it(
    'fails an item whose agent halts, keeping its branch and worktree, while the others merge',
    async () => {
      const stuck = {
        match: { promptRegex: `one item of the plan: ${spec('beta.md')}` },
        resultText: 'Still thinking.',
        writeFiles: { 'beta-draft.txt': 'draft\n' },
        statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
      };
      const q = await prdQueue(
        { calls: [doesItem(spec('alpha.md'), { 'alpha.txt': 'alpha\n' }), stuck, doesItem(spec('gamma.md'), { 'gamma.txt': 'gamma\n' })] },
        'CB_NO_PROGRESS_THRESHOLD=2\n',
      );
      const run = await runCli('ralph-queue', ['process', '--parallel', '3'], { cwd: q.project.dir, env: q.env });
      expect(run.code, run.stderr).toBe(1);
      const [alpha, beta, gamma] = queueItems(q);
      expect(alpha!.status).toBe('completed');
      expect(gamma!.status).toBe('completed');
      expect(beta!.status).toBe('failed');
      const branch = /on branch (ralph\/\S+)/.exec(String(beta!.error_message))?.[1];
      expect(branch, String(beta!.error_message)).toBeDefined();
      expect(q.project.git('show', `${branch!}:beta-draft.txt`)).toBe('draft\n');
      expect(q.branches()).toEqual([branch, 'main'].sort());
      expect(q.worktrees()).toHaveLength(1);
      expect(q.project.git('show', 'HEAD:alpha.txt')).toBe('alpha\n');
      expect(q.project.git('show', 'HEAD:gamma.txt')).toBe('gamma\n');
      expect(existsSync(q.project.path('beta-draft.txt'))).toBe(false);
    },
    LONG,
  );

  it(
    'Ctrl-C stops every agent and puts the running items back to pending; a second run finishes them in their worktrees',
    async () => {
      const q = await prdQueue({ calls: [HANGS] });
      const stopped = await interruptWithAgentsInFlight(q, 'ralph-queue', ['process', '--parallel', '3'], 3);
      expect(stopped.code, stopped.stderr).toBe(130);
      for (const call of q.claude.runs()) {
        expect(isAlive(call.pid), `agent ${call.pid}`).toBe(false);
        expect(isAlive(call.childPid!), `agent child ${call.childPid}`).toBe(false);
      }
      expect(queueItems(q).map((item) => item.status)).toEqual(['pending', 'pending', 'pending']);
      expect(q.worktrees()).toHaveLength(3);

      q.claude.setScenario({
        calls: [
          doesItem(spec('alpha.md'), { 'alpha.txt': 'alpha\n' }),
          doesItem(spec('beta.md'), { 'beta.txt': 'beta\n' }),
          doesItem(spec('gamma.md'), { 'gamma.txt': 'gamma\n' }),
        ],
      });
      const resumed = await runCli('ralph-queue', ['resume', '--parallel', '3'], { cwd: q.project.dir, env: q.env });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain('3 item(s) take up their worktrees again');
      expect(queueItems(q).map((item) => item.status)).toEqual(['completed', 'completed', 'completed']);
      expect(q.worktrees()).toEqual([]);
      expect(q.branches()).toEqual(['main']);
    },
    LONG,
  );

  it(
    'ralph --process-queue --parallel 2 does the same',
    async () => {
      const q = await prdQueue({
        calls: [
          doesItem(spec('alpha.md'), { 'alpha.txt': 'alpha\n' }),
          doesItem(spec('beta.md'), { 'beta.txt': 'beta\n' }),
          doesItem(spec('gamma.md'), { 'gamma.txt': 'gamma\n' }),
        ],
      });
      const run = await runCli('ralph', ['--process-queue', '--parallel', '2'], { cwd: q.project.dir, env: q.env });
      expect(run.code, run.stderr).toBe(0);
      expect(queueItems(q).map((item) => item.status)).toEqual(['completed', 'completed', 'completed']);
      expect(q.project.git('show', 'HEAD:gamma.txt')).toBe('gamma\n');
      expect(new Set(q.claude.runs().map((c) => c.cwd)).size).toBe(3);
      expect(q.worktrees()).toEqual([]);
    },
    LONG,
  );

  it(
    'checks the project before any change: without PROMPT.md nothing starts and the queue stays as it was',
    async () => {
      const q = await prdQueue({ calls: [doesItem(spec('alpha.md'), { 'alpha.txt': 'alpha\n' })] });
      rmSync(q.project.path('.ralph/PROMPT.md'));
      const before = readFileSync(q.project.path('.ralph/queue.json'), 'utf8');
      const run = await runCli('ralph-queue', ['process', '--parallel', '2'], { cwd: q.project.dir, env: q.env });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('PROMPT.md');
      expect(readFileSync(q.project.path('.ralph/queue.json'), 'utf8')).toBe(before);
      expect(q.worktrees()).toEqual([]);
      expect(q.branches()).toEqual(['main']);
      expect(q.claude.runs()).toEqual([]);
    },
    LONG,
  );

  it.each([['1'], ['17'], ['two']])('refuses --parallel %s, naming the flag', async (value) => {
    p = parallelProject([], { calls: [] });
    const run = await runCli('ralph-queue', ['process', '--parallel', value], { cwd: p.project.dir, env: p.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`--parallel requires a whole number from 2 to 16 (queue items at a time), got '${value}'`);
  });

  it('--help names --parallel', async () => {
    const help = await runCli('ralph-queue', ['--help'], {});
    expect(help.stdout).toContain('--parallel N      N items at a time (2-16)');
  });
});
