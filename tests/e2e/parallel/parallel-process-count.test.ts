// What a `ralph --parallel 3` run of three equal units starts, counted: the agent's CLI is asked
// its version once for the run, not once per unit.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../helpers/run-cli.js';
import { doesItem, LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

let p: ParallelProject;
let run: CliResult;

beforeAll(async () => {
  p = parallelProject(['Add alpha', 'Add beta', 'Add gamma'], {
    calls: [
      doesItem('Add alpha', { 'alpha.txt': 'alpha\n' }),
      doesItem('Add beta', { 'beta.txt': 'beta\n' }),
      doesItem('Add gamma', { 'gamma.txt': 'gamma\n' }),
    ],
  });
  run = await runCli('ralph', ['--parallel', '3'], { cwd: p.project.dir, env: p.env });
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
  });
});
