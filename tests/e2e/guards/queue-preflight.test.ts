// Preflight before change: `ralph-queue process` with no agent CLI installed fails before it
// moves the user's fix_plan.md aside; the plan, the specs and the queue item stay as they were.
// The real `ralph-queue` with the fake `gh`. Uses the built dist/ (npm run build).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { queueInProcess } from '../../helpers/queue-in-process.js';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { withFakeTaskClis } from '../../integration/bootstrap/fake-task-clis.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const PLAN = "# Fix Plan\n- [ ] the user's own task\n";

describe('ralph-queue process without an agent CLI', () => {
  it('fails before touching fix_plan.md, and the item stays pending', async () => {
    const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': PLAN }), { git: true });
    cleanups.push(() => project.cleanup());
    const claude = withFakeClaude({ calls: [{ tickFixPlan: 'all' }] });
    cleanups.push(() => claude.cleanup());
    const clis = withFakeTaskClis({ gh: { issues: [{ number: 10, title: 'Ten', labels: [], body: 'Do ten.' }] } });
    cleanups.push(() => clis.cleanup());
    const ghEnv = Object.fromEntries(Object.entries(clis.env).filter(([key]) => key.startsWith('FAKE_GH')));
    const env = { ...claude.env, ...GIT_TEST_ENV, ...ghEnv, PATH: [clis.binDir, claude.env.PATH].join(delimiter) };
    expect((await queueInProcess(project.dir, ['add', '10'], env)).code).toBe(0);
    const specsBefore = existsSync(project.path('.ralph/specs')) ? readdirSync(project.path('.ralph/specs')) : [];

    const run = await runCli('ralph-queue', ['process'], { cwd: project.dir, env: { ...env, CLAUDE_CODE_CMD: 'claude-not-installed' } });

    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('Claude Code CLI not found: claude-not-installed');
    expect(readFileSync(project.path('.ralph/fix_plan.md'), 'utf8')).toBe(PLAN);
    expect(existsSync(project.path('.ralph/specs')) ? readdirSync(project.path('.ralph/specs')) : []).toEqual(specsBefore);
    const queue = JSON.parse(readFileSync(project.path('.ralph/queue.json'), 'utf8')) as { queue: Array<{ status: string }> };
    expect(queue.queue.map((item) => item.status)).toEqual(['pending']);
    expect(claude.runs()).toHaveLength(0);
  }, 120_000);
});
