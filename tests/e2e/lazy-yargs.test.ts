// yargs is loaded only when a command line needs a yargs parser: `ralph` never (its flag table is
// read without it), and `ralph-monitor` with no flag or `--once` is answered without it (start-up
// budgets, DESIGN.md §6). Every module a process resolves is recorded through a `node --import`
// hook; a positive control proves the hook sees yargs when ralph-monitor's full parser runs.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startModuleTrace, type ModuleTrace } from '../helpers/module-trace.js';
import { runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

let trace: ModuleTrace;
let project: TmpProject | undefined;
beforeEach(() => {
  trace = startModuleTrace();
  project = tmpProject(ralphProjectTree());
});
afterEach(() => {
  project?.cleanup();
  project = undefined;
  trace.cleanup();
});

const isYargs = (url: string) => url.includes('/node_modules/yargs/');

describe('yargs is loaded lazily', () => {
  it('the trace sees yargs when the full parser runs (positive control)', async () => {
    const run = await runCli('ralph-monitor', ['--once', '--interval', '2'], { cwd: project!.dir, env: trace.env });
    expect(run.code, run.stderr).toBe(0);
    expect(trace.modules().some(isYargs)).toBe(true);
  });

  it.each([
    ['ralph', ['--config']],
    ['ralph', ['--config', '--json']],
    ['ralph', ['--circuit-status']],
    ['ralph', ['--config', '--verbose', '--calls', '5']],
    ['ralph-monitor', ['--once']],
  ] as const)('is not loaded by %s %j', async (command, args) => {
    const run = await runCli(command, [...args], { cwd: project!.dir, env: trace.env });
    expect(run.code, run.stderr).toBe(0);
    const modules = trace.modules();
    expect(modules.some((url) => url.includes('/dist/cli/'))).toBe(true);
    expect(modules.filter(isYargs)).toEqual([]);
  });
});
