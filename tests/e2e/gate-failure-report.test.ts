// A verification gate that keeps failing, as the user lives it through the real `bin/ralph` and
// `bin/ralph-stats`: the console and ralph.log say what fails (the command's last lines, secrets
// masked), the halt box names the gate as the reason, and ralph-stats counts what ralph
// measured (failed gates) rather than the agent's "tests passing".

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const LINT_ERROR = 'src/app.js:3:7 error no-unused-vars: x is assigned but never used';
const SECRET = 'sk-ant-api03-leakedByTheLinter';
// A lint gate: nothing a test parser reads, only a message and exit 1.
const LINT_SCRIPT = `console.log('checking src/app.js');\nconsole.error(${JSON.stringify(LINT_ERROR)});\nconsole.error('auth ${SECRET}');\nprocess.exit(1);\n`;

const cleanups = useCleanups();

function setup(): { p: TmpProject; f: FakeClaude } {
  const p = tmpProject(
    ralphProjectTree({
      '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="node lint.js"\n`,
      'lint.js': LINT_SCRIPT,
      '.ralph/fix_plan.md': '# Fix Plan\n- [ ] clean up app.js\n',
    }),
    { git: true },
  );
  // The agent claims passing tests every time; only the gate knows better.
  const claim = { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false, TESTS_STATUS: 'PASSING' };
  const f = withFakeClaude({
    calls: [1, 2, 3, 4].map((n) => ({ writeFiles: { 'src/app.js': `const x = ${n};\n` }, statusBlock: claim })),
  });
  cleanups.push(
    () => p.cleanup(),
    () => f.cleanup(),
  );
  return { p, f };
}

describe('a failing verification gate', () => {
  it('says why on the console and in ralph.log, names the gate in the halt box, and counts the loops as failed', async () => {
    const { p, f } = setup();
    const r = await runCli('ralph', [], { cwd: p.dir, env: f.env });

    expect(r.code).toBe(2);
    expect(f.runs()).toHaveLength(3);
    const log = readFileSync(p.path('.ralph/logs/ralph.log'), 'utf8');
    for (const text of [r.stderr, log]) {
      expect(text).toContain('node lint.js: exited with code 1');
      expect(text).toContain(LINT_ERROR);
      expect(text).not.toContain(SECRET);
    }
    expect(r.stderr).toContain('The verification gate failed the same way in consecutive loops.');
    expect(r.stderr).not.toContain('Project may be complete');

    const stats = await runCli('ralph-stats', ['--full'], { cwd: p.dir });
    expect(stats.code).toBe(0);
    const summary = JSON.parse(stats.stdout) as {
      total_loops: number;
      successful: number;
      tests_status: Record<string, number>;
      outcomes: Record<string, number>;
    };
    expect(summary).toMatchObject({ total_loops: 3, successful: 0 });
    expect(summary.tests_status).toEqual({ FAILING: 3 });
    expect(summary.outcomes).toEqual({ verification_failed: 2, halted: 1 });
  });
});
