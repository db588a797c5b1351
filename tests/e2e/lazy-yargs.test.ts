// No command loads yargs any more: every command reads its flags from its own table
// (lib/cli/flag-table.ts, read-argv.ts), which costs no start-up time (budgets, DESIGN.md §6).
// Every module a process resolves is recorded through a `node --import` hook; that the trace sees
// the command's own modules shows the hook works, so an empty yargs list means none was loaded.

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

describe('yargs is never loaded', () => {
  it.each([
    ['ralph', ['--config']],
    ['ralph', ['--config', '--json']],
    ['ralph', ['--circuit-status']],
    ['ralph', ['--config', '--verbose', '--calls', '5']],
    ['ralph-monitor', ['--once']],
    ['ralph-monitor', ['--once', '--interval', '2']],
    ['ralph-stats', ['--help']],
    ['ralph-queue', ['status', '--json']],
    ['ralph-fleet', ['--help']],
    ['ralph-enable-ci', ['--help']],
  ] as const)('by %s %j', async (command, args) => {
    const run = await runCli(command, [...args], { cwd: project!.dir, env: trace.env });
    expect(run.code, run.stderr).toBe(0);
    const modules = trace.modules();
    expect(modules.some((url) => url.includes('/dist/'))).toBe(true);
    expect(modules.filter(isYargs)).toEqual([]);
  });
});
