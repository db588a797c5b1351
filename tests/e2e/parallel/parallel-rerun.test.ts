// Running `ralph --parallel N` again always makes progress: a unit that needs review is tried
// again from its branch (with the user's fix on it), new plan items join the run, and
// `ralph --parallel-abandon` closes a run for good, keeping (and printing) its branches,
// worktrees and backup refs. A forged .ralph/parallel.json steers neither where ralph makes a
// worktree nor the run's spend and clock.

import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV } from '../../helpers/tmp-project.js';
import { doesItem, LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

let p: ParallelProject | undefined;
afterEach(() => p?.cleanup());

const resolveFails = { match: { promptRegex: 'Resolve the merge conflicts in: shared\\.txt' }, resultText: 'Could not decide.', tickFixPlan: 'all' as const };

/** Two units that conflict in shared.txt, the agent's conflict pass failing: one merged, one needs review. */
async function leaveOneForReview(): Promise<{ review: Record<string, unknown>; stdout: string }> {
  p = parallelProject(['Add alpha', 'Add beta'], {
    calls: [
      resolveFails,
      doesItem('Add alpha', { 'shared.txt': 'alpha\n' }),
      doesItem('Add beta', { 'shared.txt': 'beta\n' }),
      doesItem('Add gamma', { 'gamma.txt': 'gamma\n' }),
    ],
  });
  const run = await runCli('ralph', ['--parallel', '2'], { cwd: p.project.dir, env: p.env });
  expect(run.code, run.stderr).toBe(2);
  const review = p.state().units.find((u) => u.state === 'needs-review')!;
  expect(review, JSON.stringify(p.state().units)).toBeDefined();
  return { review, stdout: run.stdout };
}

function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
}

describe('ralph --parallel again after a unit needs review', () => {
  it(
    "says how to finish it by hand; with the user's fix committed in its worktree, the next run merges it and runs the plan's new item",
    async () => {
      const { review, stdout } = await leaveOneForReview();
      const worktree = review.worktree as string;
      expect(stdout).toContain(`${review.slug as string}: needs review (merge conflict in shared.txt: the conflict pass stopped (stagnation_detected))`);
      expect(stdout).toContain(
        `finish it: cd ${worktree}, resolve the conflicts in shared.txt (no conflict marker left), git add -A && git commit; then ralph --parallel 2 merges it`,
      );
      expect(stdout).toContain('To drop this run instead (its branches, worktrees and backup refs are kept): ralph --parallel-abandon');
      // The user follows it, and adds an item to the plan.
      const dir = p!.project.path(worktree);
      writeFileSync(join(dir, 'shared.txt'), 'alpha and beta, by hand\n');
      gitIn(dir, 'add', '-A');
      gitIn(dir, 'commit', '-q', '--no-edit');
      writeFileSync(p!.project.path('.ralph/fix_plan.md'), `${p!.plan()}- [ ] Add gamma\n`);
      p!.project.git('commit', '-q', '-m', 'plan: gamma', '--', '.ralph/fix_plan.md');

      const again = await runCli('ralph', ['--parallel', '2'], { cwd: p!.project.dir, env: p!.env });
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(again.stderr).toContain(`Unit ${review.slug as string}: tried again from ${review.branch as string}`);
      expect(again.stderr).toContain('1 new plan item(s) join it: add-gamma');
      expect(p!.project.git('show', 'HEAD:shared.txt')).toBe('alpha and beta, by hand\n');
      expect(p!.project.git('show', 'HEAD:gamma.txt')).toBe('gamma\n');
      expect(p!.plan()).toContain('- [x] Add alpha\n- [x] Add beta\n- [x] Add gamma\n');
      expect(p!.state().units.map((u) => u.state)).toEqual(['merged', 'merged', 'merged']);
      expect(p!.state().finished).toBe(true);
      // Each merge attempt kept its own backup refs: none was moved.
      const backups = p!.project
        .git('for-each-ref', '--format=%(refname)', `refs/ralph/backups/${p!.state().run_id as string}/${review.slug as string}/`)
        .trim()
        .split('\n');
      const prefix = `refs/ralph/backups/${p!.state().run_id as string}/${review.slug as string}`;
      expect(backups.filter((ref) => ref.endsWith('-unit-branch'))).toEqual([`${prefix}/1-unit-branch`, `${prefix}/2-unit-branch`]);
    },
    LONG,
  );

  it(
    'without a fix, tries the unit again: its agent gets the conflict pass once more',
    async () => {
      const { review } = await leaveOneForReview();
      p!.claude.setScenario({
        calls: [
          {
            match: { promptRegex: 'Resolve the merge conflicts in: shared\\.txt' },
            resultText: 'Resolved.',
            tickFixPlan: 'all',
            writeFiles: { 'shared.txt': 'alpha and beta\n' },
          },
        ],
      });
      const again = await runCli('ralph', ['--parallel', '2'], { cwd: p!.project.dir, env: p!.env });
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(p!.project.git('show', 'HEAD:shared.txt')).toBe('alpha and beta\n');
      expect(p!.state().units.find((u) => u.slug === review.slug)!.state).toBe('merged');
    },
    LONG,
  );

  it(
    '--parallel-abandon closes the run, keeps and prints its branches, worktrees and backup refs; the next run is a new one',
    async () => {
      const { review } = await leaveOneForReview();
      const runId = p!.state().run_id as string;
      const abandoned = await runCli('ralph', ['--parallel-abandon'], { cwd: p!.project.dir, env: p!.env });
      expect(abandoned.code, abandoned.stderr).toBe(0);
      expect(abandoned.stdout).toContain(`Abandoned parallel run ${runId} (into main)`);
      expect(abandoned.stdout).toContain(`  ${review.slug as string} (needs-review): branch ${review.branch as string}, worktree ${review.worktree as string}`);
      expect(abandoned.stdout).toContain(`  refs/ralph/backups/${runId}/${review.slug as string}/1-unit-branch`);
      expect(p!.branches()).toContain(review.branch);
      expect(existsSync(p!.project.path(review.worktree as string))).toBe(true);
      expect(p!.state().finished).toBe(true);

      p!.claude.setScenario({ calls: [doesItem(review.item as string, { [`${review.slug as string}.txt`]: 'again\n' })] });
      const next = await runCli('ralph', ['--parallel', '2'], { cwd: p!.project.dir, env: p!.env });
      expect(next.code, next.stdout + next.stderr).toBe(0);
      expect(p!.state().run_id).not.toBe(runId);
      expect(p!.state().units.map((u) => [u.item, u.state])).toEqual([[review.item, 'merged']]);
      // The abandoned run's branch is still there.
      expect(p!.branches()).toContain(review.branch);

      const nothing = await runCli('ralph', ['--parallel-abandon'], { cwd: p!.project.dir, env: p!.env });
      expect(nothing.code).toBe(0);
      expect(nothing.stdout).toBe('No unfinished parallel run to abandon\n');
    },
    LONG,
  );
});

describe('ralph --parallel with a forged .ralph/parallel.json', () => {
  it(
    'makes each worktree where the run id and unit say, never at the path in the file, and takes no spend or start time from it',
    async () => {
      p = parallelProject(['Add alpha', 'Add beta'], {
        calls: [doesItem('Add alpha', { 'alpha.txt': 'alpha\n' }), doesItem('Add beta', { 'beta.txt': 'beta\n' })],
      });
      const head = p.project.git('rev-parse', 'HEAD').trim();
      const unit = (slug: string, item: string, extra: Record<string, unknown>) => ({
        slug,
        item,
        lines: [`- [ ] ${item}`],
        after: [],
        branch: 'main',
        worktree: '../../escape-wt',
        state: 'pending',
        loops: 0,
        cost_usd: 0,
        exit_code: null,
        exit_reason: '',
        conflict_passes: 0,
        ...extra,
      });
      const forged = {
        run_id: 'p20260101T000000',
        base_commit: head,
        run_branch: 'main',
        started_at: '2000-01-01T00:00:00.000Z',
        finished: false,
        units: [
          unit('add-alpha', 'Add alpha', {}),
          unit('add-beta', 'Add beta', { worktree: join('..', '..', '.config', 'git') }),
          unit('done-before', 'Done before', { state: 'merged', cost_usd: 1000 }),
        ],
      };
      writeFileSync(p.project.path('.ralph/parallel.json'), JSON.stringify(forged));
      const run = await runCli('ralph', ['--parallel', '2', '--max-cost', '5', '--max-run-minutes', '60'], { cwd: p.project.dir, env: p.env });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(existsSync(join(p.project.dir, '..', '..', 'escape-wt'))).toBe(false);
      expect(existsSync(join(p.project.dir, '..', '..', '.config', 'git'))).toBe(false);
      const cwds = p.claude
        .runs()
        .map((c) => c.cwd)
        .sort();
      expect(cwds).toEqual([p.project.path('.ralph/worktrees/p20260101T000000-add-alpha'), p.project.path('.ralph/worktrees/p20260101T000000-add-beta')]);
      expect(p.project.git('show', 'HEAD:alpha.txt')).toBe('alpha\n');
      const state = p.state();
      expect(state.units.map((u) => [u.slug, u.branch, u.cost_usd === 1000])).toEqual([
        ['add-alpha', 'ralph/p20260101T000000/add-alpha', false],
        ['add-beta', 'ralph/p20260101T000000/add-beta', false],
        ['done-before', 'ralph/p20260101T000000/done-before', false],
      ]);
    },
    LONG,
  );
});
