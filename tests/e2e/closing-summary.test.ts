// Every run ends with one closing summary — why it stopped, tasks done and left, loops, cost,
// time, commits and the next command — on the terminal, in status.json and in `ralph --status`;
// and the loop count has one meaning everywhere: a 3-loop run is "3" in the summary, in
// status.json's loops_run and on the dashboard, while loop_count keeps the Bash tool's number.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

describe('the closing summary', () => {
  it('after a 3-loop run that finished the plan: one summary on the terminal, in status.json and in ralph --status; the dashboard says loop #3', async () => {
    const plan = '# Fix Plan\n## Tasks\n- [ ] one\n- [ ] two\n- [ ] three\n';
    const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': plan }), { git: true });
    const f = withFakeClaude({
      calls: [1, 2, 3].map((n) => ({
        writeFiles: { [`f${n}.txt`]: `${n}\n` },
        tickFixPlan: 1,
        costUsd: 0.25,
        gitCommit: `task ${n}`,
        resultText: `Did task ${n}`,
      })),
    });
    cleanups.push(
      () => p.cleanup(),
      () => f.cleanup(),
    );
    const env = { ...f.env, ...GIT_TEST_ENV };

    const run = await runCli('ralph', [], { cwd: p.dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(f.runs()).toHaveLength(3);
    expect(run.stderr.match(/Run summary/g)).toHaveLength(1);
    const block = run.stderr
      .slice(run.stderr.indexOf('Run summary'))
      .split('\n')
      .map((line) => line.replace(/^\[[^\]]*\] \[\w+\] /, ''));
    expect(block.slice(1, 8)).toEqual([
      '  Stopped:  done (exit reason: plan_complete, exit code 0)',
      '  Tasks:    3 done, 0 left',
      '  Loops:    3',
      '  Cost:     $0.75',
      expect.stringMatching(/^ {2}Time: {5}\d+s$/),
      '  Commits:  3',
      "  Next:     git log --oneline -3 (review the run's commits)",
    ]);
    // Nothing else speaks of loop #4, which a guard stopped before it ran.
    expect(run.stderr).not.toMatch(/loop #4/i);

    const status = JSON.parse(readFileSync(p.path('.ralph/status.json'), 'utf8'));
    // loop_count stays the Bash tool's: the loop number reached, the stopped one included.
    expect(status).toMatchObject({ loop_count: 4, loops_run: 3, run_loops: 3, status: 'completed' });
    expect(status.run_summary).toMatchObject({
      outcome: 'done',
      tasks_done: 3,
      tasks_left: 0,
      loops_run: 3,
      cost_usd: 0.75,
      commits: 3,
      next: "git log --oneline -3 (review the run's commits)",
    });

    const shown = await runCli('ralph', ['--status'], { cwd: p.dir, env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(
      `Last run:\nRun summary\n  Stopped:  done (exit reason: plan_complete, exit code 0)\n  Tasks:    3 done, 0 left\n  Loops:    3\n`,
    );
    expect(shown.stdout.match(/Run summary/g)).toHaveLength(1);

    const json = JSON.parse((await runCli('ralph', ['--status', '--json'], { cwd: p.dir, env })).stdout);
    expect(json).toMatchObject({ loop_count: 4, loops_run: 3, run_summary: { tasks_done: 3, commits: 3 } });

    const frame = (await runCli('ralph-monitor', ['--once'], { cwd: p.dir, env })).stdout;
    expect(frame).toMatch(/^Loop #3 .*Status: completed/m);
    expect(frame).not.toContain('Loop #4');
  });

  it('after a halt: tasks left, no commits, and the command that shows why', async () => {
    const p = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}CB_NO_PROGRESS_THRESHOLD=2\n`, '.ralph/fix_plan.md': '- [ ] one\n- [ ] two\n' }), {
      git: true,
    });
    const idle = { resultText: 'Thinking', statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } };
    const f = withFakeClaude({ calls: [idle, idle, idle, idle] });
    cleanups.push(
      () => p.cleanup(),
      () => f.cleanup(),
    );
    const run = await runCli('ralph', [], { cwd: p.dir, env: { ...f.env, ...GIT_TEST_ENV } });
    expect(run.code, run.stderr).toBe(2);
    const summary = JSON.parse(readFileSync(p.path('.ralph/status.json'), 'utf8')).run_summary;
    expect(summary).toMatchObject({ outcome: 'halted by a guard', tasks_done: 0, tasks_left: 2, commits: 0 });
    expect(summary.next).toContain('ralph --circuit-status');
    expect(run.stderr).toContain('  Next:     ralph --circuit-status');
  });
});
