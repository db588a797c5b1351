// The newcomer's journey, end to end through the real bin/* commands: ralph-setup with no
// `claude` installed, the fake claude put on PATH only afterwards, ralph --doctor, a run to its
// end, and then git status, ralph --status --json and ralph-stats telling the same story.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
const pathWithoutClaude = () =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter((d) => d && !existsSync(join(d, 'claude')))
    .join(delimiter);
const tick = (plan: string, count: number) => {
  let left = count;
  return plan.replace(/^- \[ \]/gm, (box) => (left-- > 0 ? '- [x]' : box));
};

describe('a newcomer', () => {
  it('sets up, checks with --doctor, runs to the end, and every view agrees on what happened', async () => {
    const ws: TmpProject = tmpProject({}, { git: false });
    cleanups.push(() => ws.cleanup());
    const setup = await runCli('ralph-setup', ['demo'], { cwd: ws.dir, env: { ...GIT_TEST_ENV, PATH: pathWithoutClaude() } });
    expect(setup.code, setup.stderr).toBe(0);
    const demo = ws.path('demo');
    mkdirSync(join(demo, 'src'), { recursive: true });

    // A new plan holds no task; the newcomer writes theirs at its end, under ## Tasks.
    const template = readFileSync(join(demo, '.ralph/fix_plan.md'), 'utf8');
    expect(template.match(/^- \[ \]/gm)).toBeNull();
    const plan = `${template}${['Add the app file', 'Version it', 'Document it', 'Test it'].map((t) => `- [ ] ${t}\n`).join('')}`;
    writeFileSync(join(demo, '.ralph/fix_plan.md'), plan);
    const open = 4;
    const half = Math.floor(open / 2);
    const f: FakeClaude = withFakeClaude({
      calls: [
        { resultText: 'Did the first half', writeFiles: { 'src/app.txt': 'app v1\n', '.ralph/fix_plan.md': tick(plan, half) }, gitCommit: 'first half' },
        { resultText: 'Did the rest', writeFiles: { 'src/app.txt': 'app v2\n', '.ralph/fix_plan.md': tick(plan, open) }, gitCommit: 'the rest' },
      ],
    });
    cleanups.push(() => f.cleanup());
    const env = { ...f.env, ...GIT_TEST_ENV, CLAUDE_AUTO_UPDATE: 'false', ANTHROPIC_API_KEY: 'sk-ant-test-journey-0000' };

    const doctor = await runCli('ralph', ['--doctor'], { cwd: demo, env });
    expect(doctor.stdout).toMatch(/^\[OK\] +Claude Code CLI: /m);
    expect(doctor.stdout).toMatch(/^\[OK\] +\.gitignore: /m);
    expect(doctor.stdout).not.toMatch(/^\[FAIL\]/m);
    expect(doctor.code, doctor.stdout).toBe(0);

    const run = await runCli('ralph', [], { cwd: demo, env });
    expect(run.code, run.stderr).toBe(0);
    expect(f.runs()).toHaveLength(2);

    // Only the agent's work reached git; ralph's state is ignored and nothing is left over.
    expect(git(demo, 'status', '--porcelain')).toBe('');
    expect(git(demo, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(['.ralph/fix_plan.md', 'src/app.txt']);

    const status = JSON.parse((await runCli('ralph', ['--status', '--json'], { cwd: demo, env })).stdout) as Record<string, any>;
    expect(status).toMatchObject({
      status: 'completed',
      exit_reason: 'plan_complete',
      plan: { done: open, remaining: 0, complete: true },
      budgets: { run_loops: 2 },
    });
    expect(status.session_record).toMatchObject({ status: 'converged' });

    const stats = JSON.parse((await runCli('ralph-stats', [], { cwd: demo, env })).stdout) as Record<string, unknown>;
    // The Bash tool's JSON: both loops succeeded as ralph measured them.
    expect(stats).toMatchObject({ total_loops: 2, successful: 2 });
  });
});
