// yargs is loaded only when a command line needs the full parser: `ralph --config` (`--json`),
// `ralph --circuit-status` and `ralph-monitor` with no flag or `--once` are answered without it,
// as --help, --version and --status are (start-up budgets, DESIGN.md §6). Every module a process
// resolves is recorded through a `node --import` hook; a positive control proves the hook sees
// yargs when the full parser runs.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

const REGISTER = join(REPO_ROOT, 'tests', 'fixtures', 'module-trace', 'register.mjs');
let traceDir: string;
let trace: string;
let project: TmpProject | undefined;
beforeEach(() => {
  traceDir = mkdtempSync(join(tmpdir(), 'ralph-trace-'));
  trace = join(traceDir, 'modules.txt');
  writeFileSync(trace, '');
  project = tmpProject(ralphProjectTree());
});
afterEach(() => {
  project?.cleanup();
  project = undefined;
  rmSync(traceDir, { recursive: true, force: true });
});

const traceEnv = (): NodeJS.ProcessEnv => ({ NODE_OPTIONS: `--import=${REGISTER}`, RALPH_MODULE_TRACE: trace });
const tracedModules = () => readFileSync(trace, 'utf8').split('\n').filter(Boolean);
const isYargs = (url: string) => url.includes('/node_modules/yargs/');

describe('yargs is loaded lazily', () => {
  it('the trace sees yargs when the full parser runs (positive control)', async () => {
    const run = await runCli('ralph', ['--config', '--verbose'], { cwd: project!.dir, env: traceEnv() });
    expect(run.code, run.stderr).toBe(0);
    expect(tracedModules().some(isYargs)).toBe(true);
  });

  it.each([
    ['ralph', ['--config']],
    ['ralph', ['--config', '--json']],
    ['ralph', ['--circuit-status']],
    ['ralph-monitor', ['--once']],
  ] as const)('is not loaded by %s %j', async (command, args) => {
    const run = await runCli(command, [...args], { cwd: project!.dir, env: traceEnv() });
    expect(run.code, run.stderr).toBe(0);
    const modules = tracedModules();
    expect(modules.some((url) => url.includes('/dist/cli/'))).toBe(true);
    expect(modules.filter(isYargs)).toEqual([]);
  });
});
