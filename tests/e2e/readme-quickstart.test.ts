// The README's quickstart, run exactly as printed: the ```sh block under "## Quickstart" is
// executed line by line by bash in an empty folder, with the repository's bin/ and the fake
// claude on PATH, a private tmux server, and a scenario that finishes the plan in one loop.

import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { privateTmux, waitFor, type PrivateTmux } from '../integration/monitor/tmux-harness.js';

let workspace: TmpProject | undefined;
let fake: FakeClaude | undefined;
let tmux: PrivateTmux | undefined;
afterEach(() => {
  tmux?.kill();
  workspace?.cleanup();
  fake?.cleanup();
});

/** The commands of the first ```sh block after the heading, as printed (comments and blank lines dropped). */
export function readQuickstart(readme: string): string[] {
  const section = readme.split(/^## Quickstart$/m)[1]?.split(/^## /m)[0] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
}

describe('README quickstart', () => {
  it('runs every command as printed: set up, add a task, --doctor, --monitor, and the run ends done', async () => {
    const commands = readQuickstart(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
    expect(commands.length).toBeGreaterThanOrEqual(4);
    expect(commands.some((c) => /^ralph --doctor\b/.test(c))).toBe(true);
    expect(commands.some((c) => /^ralph --monitor\b/.test(c))).toBe(true);

    workspace = tmpProject({});
    fake = withFakeClaude({ calls: [{ writeFiles: { 'hello.sh': 'echo Hello\n' }, tickFixPlan: 'all', statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } }] });
    tmux = privateTmux();
    const env = {
      ...process.env,
      ...fake.env,
      ...GIT_TEST_ENV,
      ANTHROPIC_API_KEY: 'sk-ant-quickstart-test',
      ...tmux.env,
      PATH: [join(REPO_ROOT, 'bin'), fake.env.PATH].join(delimiter),
      NO_COLOR: '1',
    };
    // One bash, one command per line as printed, stopping at the first that fails (each traced on stderr).
    const script = ['set -ex', ...commands].join('\n');
    const run = spawnSync('bash', ['-c', script], { cwd: workspace.dir, env, encoding: 'utf8', timeout: 120_000 });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/Ready to run ralph/);

    const project = workspace.path(commands.find((c) => c.startsWith('cd '))!.slice(3).trim());
    const t = tmux;
    await waitFor('the monitored run to end and its session to close', () => t.status('has-session') !== 0, 60_000);
    const status = JSON.parse(readFileSync(join(project, '.ralph/status.json'), 'utf8')) as { status: string; exit_reason?: string };
    expect(status.exit_reason).toBe('plan_complete');
    expect(readFileSync(join(project, '.ralph/fix_plan.md'), 'utf8')).toMatch(/- \[x\] /);
    expect(fake.runs()).toHaveLength(1);
  }, 180_000);
});
