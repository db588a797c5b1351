// A unit's worktree (lib/parallel/worktrees.ts openUnitWorktree), with real git: a new unit's
// branch is made with its worktree from the run's base; a unit whose branch a stopped run left
// (its worktree gone) gets its worktree back on that branch, its commits kept.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { UnitRecord } from '../../../lib/parallel/run-state.js';
import { openUnitWorktree } from '../../../lib/parallel/worktrees.js';
import { resetGitBaselines } from '../../../lib/platform/git-gateway.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';

const cleanups = useCleanups();
afterEach(() => resetGitBaselines());

const unit = { slug: 'alpha', branch: 'ralph/wt/alpha', worktree: '.ralph/worktrees/alpha' } as UnitRecord;

function setUp() {
  const project = tmpProject(ralphProjectTree(), { git: true });
  cleanups.push(() => project.cleanup());
  const env: NodeJS.ProcessEnv = { ...process.env, ...GIT_TEST_ENV };
  const git = { runner: nodeProcessRunner, env };
  const base = project.git('rev-parse', 'HEAD').trim();
  const dir = join(project.dir, unit.worktree);
  const head = () => execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
  const branch = () => execFileSync('git', ['symbolic-ref', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
  return { project, git, base, dir, head, branch };
}

describe('openUnitWorktree', () => {
  it("makes a new unit's branch with its worktree, from the base", async () => {
    const { project, git, base, head, branch } = setUp();
    await openUnitWorktree(git, project.dir, unit, base);
    expect(branch()).toBe(unit.branch);
    expect(head()).toBe(base);
  });

  it('checks out the branch a stopped run left, with its commits, when its worktree is gone', async () => {
    const { project, git, base, dir, head, branch } = setUp();
    await openUnitWorktree(git, project.dir, unit, base);
    writeFileSync(join(dir, 'alpha.txt'), 'alpha\n');
    execFileSync('git', ['add', 'alpha.txt'], { cwd: dir, env: git.env });
    execFileSync('git', ['commit', '-q', '-m', 'alpha'], { cwd: dir, env: git.env });
    const work = head();
    project.git('worktree', 'remove', '--force', dir);
    await openUnitWorktree(git, project.dir, unit, base);
    expect(branch()).toBe(unit.branch);
    expect(head()).toBe(work);
  });
});
