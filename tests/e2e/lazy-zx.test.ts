// zx is loaded only by the commands that run scripts (setup, enable, import, --monitor): the
// fast paths (--help, --version, --status) and a whole loop never resolve it. Every module a
// process resolves is recorded through a `node --import` hook; a positive control proves the
// hook sees zx when it is loaded.

import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { startModuleTrace, type ModuleTrace } from '../helpers/module-trace.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

let trace: ModuleTrace;
let project: TmpProject | undefined;
let fake: FakeClaude | undefined;
beforeEach(() => {
  trace = startModuleTrace();
});
afterEach(() => {
  project?.cleanup();
  fake?.cleanup();
  project = fake = undefined;
  trace.cleanup();
});

const isZx = (url: string) => url.includes('/node_modules/zx/');

describe('zx is loaded lazily', () => {
  it('the trace sees zx when a process imports it (positive control)', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('zx/core')"], { cwd: REPO_ROOT, env: { ...process.env, ...trace.env } });
    expect(run.status).toBe(0);
    expect(trace.modules().some(isZx)).toBe(true);
  });

  it('is not loaded by ralph --help, --version or --status', async () => {
    project = tmpProject(ralphProjectTree());
    for (const args of [['--help'], ['--version'], ['--status'], ['--status', '--json']]) {
      const run = await runCli('ralph', args, { cwd: project.dir, env: trace.env });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
    }
    const modules = trace.modules();
    expect(modules.some((url) => url.includes('/dist/cli/'))).toBe(true);
    expect(modules.filter(isZx)).toEqual([]);
  });

  it('is not loaded by a loop', async () => {
    project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="true"\n`, '.ralph/fix_plan.md': '- [ ] one\n' }), { git: true });
    fake = withFakeClaude({ calls: [{ resultText: 'Did the one task.', tickFixPlan: 'all', writeFiles: { 'x.txt': 'y' } }] });
    const run = await runCli('ralph', ['--max-loops', '2'], { cwd: project.dir, env: { ...fake.env, ...GIT_TEST_ENV, ...trace.env } });
    expect(run.code, run.stderr).toBe(0);
    const modules = trace.modules();
    expect(modules.some((url) => url.includes('/dist/bundle-ralph/'))).toBe(true);
    expect(modules.filter(isZx)).toEqual([]);
  });
});
