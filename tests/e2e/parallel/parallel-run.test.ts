// `ralph --parallel N` end to end with the real bin/ralph, real git and the fake `claude`:
// units merged and ticked, conflicts resolved by the agent or left for review, halted units
// kept, dirty trees refused, and a project whose agent commits .ralph/ too.

import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { doesItem, LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

let p: ParallelProject | undefined;
afterEach(() => p?.cleanup());

describe('ralph --parallel', () => {
  it('runs three items side by side, merges and ticks each, and leaves no worktree or unit branch', async () => {
    p = parallelProject(['Add alpha', 'Add beta', 'Add gamma'], {
      calls: [doesItem('Add alpha', { 'alpha.txt': 'alpha\n' }), doesItem('Add beta', { 'beta.txt': 'beta\n' }), doesItem('Add gamma', { 'gamma.txt': 'gamma\n' })],
    });
    const run = await runCli('ralph', ['--parallel', '3'], { cwd: p.project.dir, env: p.env });
    expect(run.code, run.stderr).toBe(0);
    expect(p.project.git('show', 'HEAD:alpha.txt')).toBe('alpha\n');
    expect(p.project.git('show', 'HEAD:beta.txt')).toBe('beta\n');
    expect(p.project.git('show', 'HEAD:gamma.txt')).toBe('gamma\n');
    expect(p.plan()).toContain('- [x] Add alpha\n- [x] Add beta\n- [x] Add gamma\n');
    // The plan is tracked here: each tick is committed, so the run branch is clean.
    expect(p.project.git('status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(p.worktrees()).toEqual([]);
    expect(p.branches()).toEqual(['main']);
    expect(p.state().units.map((u) => u.state)).toEqual(['merged', 'merged', 'merged']);
    // Each agent ran in its own worktree, at the same time as the others.
    const cwds = p.claude.runs().map((c) => c.cwd);
    expect(new Set(cwds).size).toBe(3);
    expect(run.stdout).toContain('add-alpha: merged');
  }, LONG);
});
