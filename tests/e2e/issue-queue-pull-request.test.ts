// A queue item's pull request holds the item's work: what the loop left uncommitted is
// committed as `Fix #N: <title>` before the lifecycle pushes the branch and opens the PR.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { queueInProcess } from '../helpers/queue-in-process.js';
import { runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { withFakeTaskClis, type FakeTaskClis } from '../integration/bootstrap/fake-task-clis.js';

let project: TmpProject | undefined;
let claude: FakeClaude | undefined;
let clis: FakeTaskClis | undefined;
let origin: string | undefined;
afterEach(() => {
  project?.cleanup();
  claude?.cleanup();
  clis?.cleanup();
  if (origin) rmSync(origin, { recursive: true, force: true });
});

describe('ralph-queue process with CREATE_PR', () => {
  it("pushes the item's Fix #N commit with the branch the pull request is opened from", async () => {
    project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\nCREATE_PR=true\n` }), { git: true });
    origin = mkdtempSync(join(tmpdir(), 'queue-origin-'));
    project.git('init', '-q', '--bare', origin);
    project.git('remote', 'add', 'origin', origin);
    project.git('checkout', '-q', '-b', 'feature');
    claude = withFakeClaude({ calls: [{ resultText: 'Did the task.', tickFixPlan: 'all', writeFiles: { 'work.txt': 'work\n' } }] });
    clis = withFakeTaskClis({ gh: { issues: [{ number: 4, title: 'Four' }] } });
    const fakeGh = Object.fromEntries(Object.entries(clis.env).filter(([key]) => key.startsWith('FAKE_GH')));
    const env = { ...claude.env, ...GIT_TEST_ENV, ...fakeGh, PATH: [clis.binDir, claude.env.PATH].join(delimiter) };

    expect((await queueInProcess(project.dir, ['add', '4'], env)).code).toBe(0);
    const run = await runCli('ralph-queue', ['process'], { cwd: project.dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(clis.ghCalls().filter((argv) => argv[0] === 'pr')).toHaveLength(1);
    const pushed = execFileSync('git', ['--git-dir', origin, 'log', '--format=%s', 'feature'], { encoding: 'utf8' });
    expect(pushed.split('\n')[0]).toBe('Fix #4: Four');
    expect(execFileSync('git', ['--git-dir', origin, 'show', 'feature:work.txt'], { encoding: 'utf8' })).toBe('work\n');
  }, 120_000);
});
