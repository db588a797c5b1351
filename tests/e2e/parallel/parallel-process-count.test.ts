// What a `ralph --parallel 3` run of three equal units starts, counted: the agent's CLI is asked
// its version once for the run, as the run starts, not once per unit; git (counted through
// GIT_TRACE: git writes a line per process it starts) is not asked at the run's start what the
// gateway's first look at the project answered, nor whether a new unit's branch exists, and each
// merge asks for both tips in one call.

import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../helpers/run-cli.js';
import { doesItem, LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

let p: ParallelProject;
let run: CliResult;
let gitCalls: string[];

beforeAll(async () => {
  p = parallelProject(['Add alpha', 'Add beta', 'Add gamma'], {
    calls: [
      doesItem('Add alpha', { 'alpha.txt': 'alpha\n' }),
      doesItem('Add beta', { 'beta.txt': 'beta\n' }),
      doesItem('Add gamma', { 'gamma.txt': 'gamma\n' }),
    ],
  });
  const trace = join(p.claude.root, 'git-trace.log');
  writeFileSync(trace, '');
  run = await runCli('ralph', ['--parallel', '3'], { cwd: p.project.dir, env: { ...p.env, GIT_TRACE: trace } });
  gitCalls = readFileSync(trace, 'utf8')
    .split('\n')
    .flatMap((line) => (/built-in: git /.test(line) ? [line.replace(/.*built-in: /, '')] : []));
}, LONG);
afterAll(() => p?.cleanup());

describe('ralph --parallel 3: the processes of a run', () => {
  it('merges the three units', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(p.state().units.map((u) => u.state)).toEqual(['merged', 'merged', 'merged']);
    expect(p.claude.runs()).toHaveLength(3);
  });

  it("asks the agent's CLI its version once for the three units", () => {
    const versions = p.claude.calls().filter((call) => call.argv.includes('--version'));
    expect(versions).toHaveLength(1);
    // Asked as the run starts, in the project, while the units' worktrees are made: not by the
    // first unit in its worktree.
    expect(versions[0]!.cwd).toBe(realpathSync(p.project.dir));
  });

  it("does not ask git again at the run's start whether the project is in a work tree, where its repository is, or what HEAD is", () => {
    expect(gitCalls.filter((call) => call.includes('--is-inside-work-tree'))).toEqual([]);
    expect(gitCalls.filter((call) => call.includes('--path-format=absolute --git-common-dir'))).toEqual([]);
    expect(gitCalls.filter((call) => /rev-parse (--verify -q )?HEAD$/.test(call))).toEqual([]);
  });

  it("makes each new unit's branch with its worktree, without asking first whether the branch exists", () => {
    expect(gitCalls.filter((call) => / worktree add -q -b ralph\//.test(call))).toHaveLength(3);
    expect(gitCalls.filter((call) => /rev-parse --verify -q refs\/heads\/ralph\//.test(call))).toEqual([]);
  });

  it('asks for the run branch and the unit branch tips in one call per merge', () => {
    expect(gitCalls.filter((call) => / rev-parse HEAD refs\/heads\//.test(call))).toHaveLength(3);
    expect(gitCalls.filter((call) => / rev-parse refs\/heads\/ralph\//.test(call))).toEqual([]);
  });
});
