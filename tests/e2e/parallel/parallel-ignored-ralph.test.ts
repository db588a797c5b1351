// `ralph --parallel N` in a project whose .gitignore ignores all of `.ralph/` (a common choice):
// the units merge and the items are ticked as in any other project.

import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { doesItem, LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

let p: ParallelProject | undefined;
afterEach(() => p?.cleanup());

describe('ralph --parallel in a project that ignores .ralph/', () => {
  it(
    'merges three independent items and ticks each in the (untracked) plan',
    async () => {
      p = parallelProject(
        ['Add alpha', 'Add beta', 'Add gamma'],
        {
          calls: [
            doesItem('Add alpha', { 'alpha.txt': 'alpha\n' }),
            doesItem('Add beta', { 'beta.txt': 'beta\n' }),
            doesItem('Add gamma', { 'gamma.txt': 'gamma\n' }),
          ],
        },
        { files: { '.gitignore': '.ralph/\n' } },
      );
      expect(p.project.git('ls-files', '.ralph')).toBe('');
      const run = await runCli('ralph', ['--parallel', '3'], { cwd: p.project.dir, env: p.env });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(p.state().units.map((u) => u.state)).toEqual(['merged', 'merged', 'merged']);
      for (const name of ['alpha', 'beta', 'gamma']) expect(p.project.git('show', `HEAD:${name}.txt`)).toBe(`${name}\n`);
      expect(p.plan()).toContain('- [x] Add alpha\n- [x] Add beta\n- [x] Add gamma\n');
      expect(p.project.git('ls-files', '.ralph')).toBe('');
      expect(p.project.git('status', '--porcelain')).toBe('');
      expect(p.worktrees()).toEqual([]);
      expect(p.branches()).toEqual(['main']);
    },
    LONG,
  );
});
