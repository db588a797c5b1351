// `ralph --demo` on a machine with no agent CLI and a fresh home: the whole loop runs on a
// throw-away project with the built-in scripted agent (three loops, the gate after each, the
// closing summary), labelled as a demo, and nothing is left behind — not in the temp folder,
// not in the home folder, not in the folder it was started from. With --monitor, the run is
// shown in tmux, and the project it keeps (the run goes on detached) is named.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { useCleanups } from '../helpers/cleanups.js';
import { privateTmux, waitFor } from '../integration/monitor/tmux-harness.js';

const cleanups = useCleanups();

/** PATH without any agent CLI: the demo needs none. */
const pathWithoutAgents = () =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter((d) => d && !['claude', 'codex', 'gemini', 'opencode'].some((cli) => existsSync(join(d, cli))))
    .join(delimiter);

function emptyDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('ralph --demo', () => {
  it('runs plan, loops, the gate and the closing summary with the scripted agent, spends nothing and keeps nothing', async () => {
    const [home, temp, cwd] = [emptyDir('home'), emptyDir('tmp'), emptyDir('cwd')];
    const env = { HOME: home, TMPDIR: temp, XDG_STATE_HOME: '', PATH: pathWithoutAgents(), ANTHROPIC_API_KEY: '', CLAUDE_CODE_CMD: 'claude' };
    const r = await runCli('ralph', ['--demo'], { cwd, env });
    expect(r.code, r.stderr).toBe(0);

    expect(r.stdout).toMatch(
      /^=== ralph --demo ===\nA demo run: ralph's built-in scripted agent stands in for Claude Code\. No account, no model,\nnothing spent\./,
    );
    expect(r.stderr.match(/=== Starting Loop #\d ===/g)).toEqual(['=== Starting Loop #1 ===', '=== Starting Loop #2 ===', '=== Starting Loop #3 ===']);
    expect(r.stderr.match(/Verification gate passed/g)).toHaveLength(3);
    const summary = r.stderr
      .slice(r.stderr.indexOf('Run summary'))
      .split('\n')
      .map((line) => line.replace(/^\[[^\]]*\] \[\w+\] /, ''));
    expect(summary).toEqual(
      expect.arrayContaining([
        '  Stopped:  done (exit reason: plan_complete, exit code 0)',
        '  Tasks:    3 done, 0 left',
        '  Loops:    3',
        '  Cost:     $0.00',
        '  Commits:  3',
        '  Next:     ralph-setup my-project (or ralph-enable in a project you have), write your tasks in .ralph/fix_plan.md, then ralph --doctor',
      ]),
    );
    expect(r.stdout).toMatch(/=== End of the demo \(exit 0\)\. Nothing was kept: .*ralph-demo-\w+ is removed\. ===\n$/);

    // Nothing left: the project, its git repository and ralph's ledger for it were all in the one temp folder.
    expect(readdirSync(temp)).toEqual([]);
    expect(readdirSync(home)).toEqual([]);
    expect(readdirSync(cwd)).toEqual([]);
  }, 120_000);

  it('with --monitor: the same run in tmux beside the dashboard; detached, the project it keeps is named', async () => {
    const [home, temp, cwd] = [emptyDir('home'), emptyDir('tmp'), emptyDir('cwd')];
    const tmux = privateTmux();
    cleanups.push(() => tmux.kill());
    const env = { HOME: home, TMPDIR: temp, XDG_STATE_HOME: '', PATH: pathWithoutAgents(), ...tmux.env };
    const r = await runCli('ralph', ['--demo', '--monitor'], { cwd, env });
    expect(r.code, r.stderr).toBe(0);
    const kept = /Kept until you remove it: (\S+) /.exec(r.stdout)?.[1];
    expect(kept, r.stdout).toBeDefined();
    await waitFor('the demo run in tmux to end', () => tmux.status('has-session') !== 0, 60_000);
    const status = JSON.parse(readFileSync(join(kept!, 'ralph-demo/.ralph/status.json'), 'utf8'));
    expect(status).toMatchObject({ status: 'completed', exit_reason: 'plan_complete', loops_run: 3, run_summary: { tasks_done: 3, tasks_left: 0 } });
    expect(readdirSync(home)).toEqual([]);
    rmSync(kept!, { recursive: true, force: true });
  }, 120_000);
});
