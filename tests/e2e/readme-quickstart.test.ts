// The README's first steps, run exactly as printed. "Your first run, in a minute": its command
// (`ralph --demo`) runs with the repository's bin/ on PATH and no agent CLI at all, and what it
// prints is compared with the transcript the README shows, line by line (times, temp paths,
// ids and durations aside). "Your own project": its ```sh block is executed line by line by
// bash in an empty folder, with the fake claude on PATH, a private tmux server, and a scenario
// that finishes the one task in one loop.

import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { privateTmux, waitFor, type PrivateTmux } from '../integration/monitor/tmux-harness.js';
import { parseFixPlan } from '../../lib/plan/fix-plan.js';

let workspace: TmpProject | undefined;
let fake: FakeClaude | undefined;
let tmux: PrivateTmux | undefined;
afterEach(() => {
  tmux?.kill();
  workspace?.cleanup();
  fake?.cleanup();
});

const README = () => readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** A section of the README, from its `## ` heading to the next. */
function section(readme: string, title: string): string {
  return readme.split(new RegExp(`^## ${title}$`, 'm'))[1]?.split(/^## /m)[0] ?? '';
}

/** The commands of the first fenced block of this kind in the section, as printed (comments and blank lines dropped). */
export function readCommands(readme: string, title: string, fence = 'sh'): string[] {
  const block = new RegExp(`\`\`\`${fence}\\n([\\s\\S]*?)\`\`\``).exec(section(readme, title))?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** The parts of a transcript that differ from run to run, made the same. */
export function normalizeTranscript(text: string): string[] {
  return text
    .trimEnd()
    .split('\n')
    .map((line) =>
      line
        .replace(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\]/, '[TIME]')
        .replace(/\/\S*\/ralph-demo-\w+/g, '/TMP/ralph-demo-X')
        .replace(/\bralph-\d+-\d+\b/g, 'ralph-SESSION')
        .replace(/\b\d{8}T\d{6}Z-[0-9a-f]+\b/g, 'RUN-ID')
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]\.\.\./g, 'AGENT-SESSION...')
        .replace(/ in \d+(\.\d+)?s:/g, ' in Ns:')
        .replace(/Time: +\d+(h \d\dm \d\ds|m \d\ds|s)$/, 'Time: N'),
    );
}

const pathWithoutAgents = () =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter((d) => d && !['claude', 'codex', 'gemini', 'opencode'].some((cli) => existsSync(join(d, cli))))
    .join(delimiter);

describe('README', () => {
  it('"Your first run, in a minute": ralph --demo, as printed, prints the transcript the README shows', () => {
    const readme = README();
    const commands = readCommands(readme, 'Your first run, in a minute');
    expect(commands).toEqual(['ralph --demo']);
    const shown = /```text\n\$ ralph --demo\n([\s\S]*?)```/.exec(section(readme, 'Your first run, in a minute'))?.[1];
    expect(shown, 'the README shows the transcript of ralph --demo').toBeDefined();

    workspace = tmpProject({});
    const home = workspace.path('home');
    spawnSync('mkdir', [home]);
    const env = { ...process.env, HOME: home, XDG_STATE_HOME: '', NO_COLOR: '1', PATH: [join(REPO_ROOT, 'bin'), pathWithoutAgents()].join(delimiter) };
    // One terminal: the output and the log lines in the order they were written.
    const run = spawnSync('bash', ['--norc', '-c', `${commands[0]!} 2>&1`], { cwd: workspace.dir, env, encoding: 'utf8', timeout: 120_000 });
    expect(run.status, run.stdout).toBe(0);
    expect(normalizeTranscript(run.stdout)).toEqual(normalizeTranscript(shown!));
  }, 180_000);

  it('"Your own project": every command as printed — set up, add a task, --doctor, --monitor — and the run does that one task', async () => {
    const commands = readCommands(README(), 'Your own project');
    expect(commands.length).toBeGreaterThanOrEqual(4);
    expect(commands.some((c) => /^ralph --doctor\b/.test(c))).toBe(true);
    expect(commands.some((c) => /^ralph --monitor\b/.test(c))).toBe(true);

    workspace = tmpProject({});
    fake = withFakeClaude({
      calls: [{ writeFiles: { 'hello.sh': 'echo Hello\n' }, tickFixPlan: 'all', statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } }],
    });
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
    const run = spawnSync('bash', ['--norc', '-c', script], { cwd: workspace.dir, env, encoding: 'utf8', timeout: 120_000 });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/Ready to run ralph/);
    // The task the README's echo adds is the plan's one task, under ## Tasks: nothing else runs.
    expect(run.stdout).toContain('[OK]   fix_plan.md: 1 open task(s), 0 done');

    const project = workspace.path(
      commands
        .find((c) => c.startsWith('cd '))!
        .slice(3)
        .trim(),
    );
    const t = tmux;
    await waitFor('the monitored run to end and its session to close', () => t.status('has-session') !== 0, 60_000);
    const status = JSON.parse(readFileSync(join(project, '.ralph/status.json'), 'utf8')) as { status: string; exit_reason?: string; loops_run?: number };
    expect(status).toMatchObject({ exit_reason: 'plan_complete', loops_run: 1 });
    const plan = parseFixPlan(readFileSync(join(project, '.ralph/fix_plan.md'), 'utf8'), ['Optional']);
    expect(plan.items).toEqual([expect.objectContaining({ text: 'Add hello.sh, which prints "Hello"', done: true, section: 'Tasks' })]);
    expect(fake.runs()).toHaveLength(1);
  }, 180_000);
});
