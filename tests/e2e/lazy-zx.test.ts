// zx is loaded only by the commands that run scripts (setup, enable, import, --monitor): the
// fast paths (--help, --version, --status) and a whole loop never resolve it. Every module a
// process resolves is recorded through a `node --import` hook; a positive control proves the
// hook sees zx when it is loaded.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

const REGISTER = join(REPO_ROOT, 'tests', 'fixtures', 'module-trace', 'register.mjs');
let traceDir: string;
let trace: string;
let project: TmpProject | undefined;
let fake: FakeClaude | undefined;
beforeEach(() => {
  traceDir = mkdtempSync(join(tmpdir(), 'ralph-trace-'));
  trace = join(traceDir, 'modules.txt');
  writeFileSync(trace, '');
});
afterEach(() => {
  project?.cleanup();
  fake?.cleanup();
  project = fake = undefined;
  rmSync(traceDir, { recursive: true, force: true });
});

function traceEnv(): NodeJS.ProcessEnv {
  return { NODE_OPTIONS: `--import=${REGISTER}`, RALPH_MODULE_TRACE: trace };
}

function tracedModules(): string[] {
  return readFileSync(trace, 'utf8').split('\n').filter(Boolean);
}

const isZx = (url: string) => url.includes('/node_modules/zx/');

describe('zx is loaded lazily', () => {
  it('the trace sees zx when a process imports it (positive control)', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('zx/core')"], { cwd: REPO_ROOT, env: { ...process.env, ...traceEnv() } });
    expect(run.status).toBe(0);
    expect(tracedModules().some(isZx)).toBe(true);
  });

  it('is not loaded by ralph --help, --version or --status', async () => {
    project = tmpProject(ralphProjectTree());
    for (const args of [['--help'], ['--version'], ['--status'], ['--status', '--json']]) {
      const run = await runCli('ralph', args, { cwd: project.dir, env: traceEnv() });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
    }
    const modules = tracedModules();
    expect(modules.some((url) => url.includes('/dist/cli/'))).toBe(true);
    expect(modules.filter(isZx)).toEqual([]);
  });

  it('is not loaded by a loop', async () => {
    project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="true"\n`, '.ralph/fix_plan.md': '- [ ] one\n' }), { git: true });
    fake = withFakeClaude({ calls: [{ resultText: 'Did the one task.', tickFixPlan: 'all', writeFiles: { 'x.txt': 'y' } }] });
    const run = await runCli('ralph', ['--max-loops', '2'], { cwd: project.dir, env: { ...fake.env, ...GIT_TEST_ENV, ...traceEnv() } });
    expect(run.code, run.stderr).toBe(0);
    const modules = tracedModules();
    expect(modules.some((url) => url.includes('/dist/bundle-ralph/'))).toBe(true);
    expect(modules.filter(isZx)).toEqual([]);
  });
});
