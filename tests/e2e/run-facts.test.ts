// Facts belong to a run: after a run escalated on a GitHub issue, a start the open breaker
// refuses names no run it never recorded, and a later run that converged with no agent call (and
// no --github-issue) is not shown with the earlier run's record or issue — `ralph --status
// --json` and the dashboard label them as an earlier run's. Through the real bin/* commands.

import { readFileSync, writeFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';
import { withFakeTaskClis } from '../integration/bootstrap/fake-task-clis.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

// One TAP test that fails until the file `pass` exists.
const TEST_SCRIPT =
  "const fs = require('fs');\nif (fs.existsSync('pass')) { console.log('TAP version 13\\nok 1 - a\\n1..1'); process.exit(0); }\nconsole.log('TAP version 13\\nnot ok 1 - a\\n1..1');\nprocess.exit(1);\n";

describe('facts of a run', () => {
  it('are shown as current only during that run; a refused start names no run', async () => {
    const p = tmpProject(
      ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="node t.js"\n`, 't.js': TEST_SCRIPT, '.ralph/fix_plan.md': '# Fix Plan\n- [ ] fix it\n' }),
      { git: true },
    );
    const f = withFakeClaude({ calls: [1, 2, 3].map((n) => ({ writeFiles: { 'src/a.js': `${n}\n` } })) });
    const clis = withFakeTaskClis({ gh: { issues: [{ number: 12, title: 'The widget' }] } });
    cleanups.push(
      () => p.cleanup(),
      () => f.cleanup(),
      () => clis.cleanup(),
    );
    const env = {
      ...f.env,
      ...GIT_TEST_ENV,
      FAKE_GH_DATA: clis.env.FAKE_GH_DATA!,
      FAKE_GH_LOG: clis.env.FAKE_GH_LOG!,
      PATH: [clis.binDir, f.env.PATH].join(delimiter),
    };
    const status = async () => JSON.parse((await runCli('ralph', ['--status', '--json'], { cwd: p.dir, env })).stdout) as Record<string, any>;

    // 1. Escalated on issue #12: the same failing test three times.
    const first = await runCli('ralph', ['--github-issue', '12'], { cwd: p.dir, env });
    expect(first.code, first.stderr).toBe(2);
    const escalated = await status();
    const firstRun = escalated.budgets.run_id as string;
    expect(escalated.session_record).toMatchObject({ run_id: firstRun, status: 'escalated' });
    expect(escalated.github_lifecycle).toMatchObject({ issue: { number: 12 }, run_id: firstRun });

    // 2. The open breaker refuses the next start: no run is named that was never recorded.
    const refused = await runCli('ralph', [], { cwd: p.dir, env });
    expect(refused.code).toBe(2);
    expect(f.runs()).toHaveLength(3);
    expect(refused.stderr).not.toContain('Starting a new run');
    expect(refused.stderr).not.toMatch(/\brun \d{8}T\d{6}Z-/);
    expect(refused.stderr).toMatch(/ {2}Loops: +0\n/);
    expect(JSON.parse(readFileSync(p.path('.ralph/status.json'), 'utf8'))).toMatchObject({ loop_count: 1, loops_run: 0 });

    // 3. Fixed by hand; a run without --github-issue converges before any agent call.
    expect((await runCli('ralph', ['--reset-circuit'], { cwd: p.dir, env })).code).toBe(0);
    writeFileSync(p.path('pass'), '');
    writeFileSync(p.path('.ralph/fix_plan.md'), '# Fix Plan\n- [x] fix it\n');
    // A tick no loop of ralph's measured: the user says it is done.
    expect((await runCli('ralph', ['--accept-item', 'fix it'], { cwd: p.dir, env })).code).toBe(0);
    const converged = await runCli('ralph', [], { cwd: p.dir, env });
    expect(converged.code, converged.stderr).toBe(0);
    expect(f.runs()).toHaveLength(3);

    const now = await status();
    expect(now).toMatchObject({ status: 'completed', exit_reason: 'plan_complete' });
    expect(now.budgets.run_id).not.toBe(firstRun);
    expect(now.session_record).toBeNull();
    expect(now.github_lifecycle).toBeNull();
    expect(now.from_earlier_runs.session_record).toMatchObject({ run_id: firstRun, status: 'escalated' });
    expect(now.from_earlier_runs.github_lifecycle).toMatchObject({ issue: { number: 12 }, run_id: firstRun });
    // Each token figure says what it counts.
    expect(now.rate_window.tokens_counted).toBe('input + output');
    expect(now.budgets.run_tokens_counted).toBe('input + output + cache reads + cache writes');

    const frame = (await runCli('ralph-monitor', ['--once'], { cwd: p.dir, env })).stdout;
    expect(frame).toMatch(/^Earlier run: escalated · 3 attempts/m);
    expect(frame).not.toMatch(/^Run escalated/m);
    expect(frame).not.toContain('GitHub issue');
    expect(frame).not.toContain('#12');
    expect(frame).toMatch(/^Tokens +[\d,]+ this hour \(input\+output, no limit\)/m);
    expect(frame).toMatch(/^Cost .* this run, [\d,]+ tokens incl\. cache/m);
  });
});
