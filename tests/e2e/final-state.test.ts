// After a run has finished, the views say what happened: `ralph --status --json` and
// `ralph-monitor --once` show the last loop's analysis and the gate's result (not "verifying"
// or "No analysis yet"), and ralph.log announces no loop that never ran.

import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

let project: TmpProject | undefined;
let fake: FakeClaude | undefined;
afterEach(() => {
  project?.cleanup();
  fake?.cleanup();
});

describe('the final state of a completed run', () => {
  it('is shown truthfully by --status --json, the dashboard and ralph.log', async () => {
    project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\n`, '.ralph/fix_plan.md': '- [ ] one\n' }), { git: true });
    fake = withFakeClaude({ calls: [{ resultText: 'Did the one task.', tickFixPlan: 'all', writeFiles: { 'x.txt': 'y' } }] });
    const env = { ...fake.env, ...GIT_TEST_ENV };
    const run = await runCli('ralph', ['--max-loops', '5'], { cwd: project.dir, env });
    expect(run.code, run.stderr).toBe(0);

    const status = JSON.parse((await runCli('ralph', ['--status', '--json'], { cwd: project.dir, env })).stdout);
    expect(status.status).toBe('completed');
    expect(status.last_analysis).not.toBeNull();
    expect(status.last_analysis.loop_number).toBe(1);
    expect(status.progress.status).toBe('gate_passed');

    const frame = (await runCli('ralph-monitor', ['--once'], { cwd: project.dir, env })).stdout;
    expect(frame).toContain('Last loop #1');
    expect(frame).not.toContain('No analysis yet');
    expect(frame).toContain('Last agent run: finished; verification gate passed');
    expect(frame).not.toMatch(/verifying/);

    const log = readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8');
    expect(log).toContain('=== Starting Loop #1 ===');
    expect(log).not.toContain('=== Starting Loop #2 ===');
    expect(log).toContain('Stopped:  done (exit reason: plan_complete, exit code 0)');
    // Loop #2 is counted (status.json loop_count, as the Bash tool) but never ran: loops_run says 1, and so does every view.
    expect(JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8'))).toMatchObject({ loop_count: 2, loops_run: 1 });
    expect(log).toMatch(/\] +Loops: +1\n/);
    expect(log).not.toMatch(/Stopped (at|before) loop #2/);
    expect(frame).toMatch(/^Loop #1\/5 .*Status: completed/m);
  });
});
