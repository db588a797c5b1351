// Crash windows of `ralph --parallel`: a run killed between a unit's merge and the tick of its
// item does not do the item again: the next run finds the branch merged and ticks the item.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV } from '../../helpers/tmp-project.js';
import { LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

let p: ParallelProject | undefined;
afterEach(() => p?.cleanup());

const RUN = 'p20260101T000000';

describe('ralph --parallel after a crash between a merge and its tick', () => {
  it(
    "ticks the merged unit's item and runs no agent for it",
    async () => {
      p = parallelProject(['Add alpha'], { calls: [] });
      const base = p.project.git('rev-parse', 'HEAD').trim();
      const branch = `ralph/${RUN}/add-alpha`;
      const worktree = `.ralph/worktrees/${RUN}-add-alpha`;
      p.project.git('worktree', 'add', '-q', '-b', branch, worktree, base);
      const inUnit = (...args: string[]) =>
        execFileSync('git', args, { cwd: p!.project.path(worktree), env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
      writeFileSync(p.project.path(`${worktree}/alpha.txt`), 'alpha\n');
      inUnit('add', 'alpha.txt');
      inUnit('commit', '-q', '-m', 'alpha');
      // The merge went in; ralph was killed before the tick.
      p.project.git('merge', '-q', '--ff-only', branch);
      const unit = {
        slug: 'add-alpha',
        item: 'Add alpha',
        lines: ['- [ ] Add alpha'],
        after: [],
        branch,
        worktree,
        state: 'merged',
        loops: 1,
        cost_usd: 0,
        exit_code: 0,
        exit_reason: 'fast-forward',
        conflict_passes: 0,
        merge_attempts: 1,
      };
      writeFileSync(
        p.project.path('.ralph/parallel.json'),
        JSON.stringify({ run_id: RUN, base_commit: base, run_branch: 'main', started_at: '2026-01-01T00:00:00Z', finished: false, units: [unit] }),
      );

      const run = await runCli('ralph', ['--parallel', '2'], { cwd: p.project.dir, env: p.env });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stderr).toContain('Unit add-alpha: merged, its item not ticked yet: ticking it');
      expect(p.claude.runs()).toHaveLength(0);
      expect(p.plan()).toContain('- [x] Add alpha\n');
      expect(p.project.git('show', 'HEAD:.ralph/fix_plan.md')).toContain('- [x] Add alpha\n');
      expect(p.state().finished).toBe(true);
      expect(p.branches()).toEqual(['main']);
    },
    LONG,
  );
});
