// The plan has a memory: ralph's loop against a fake Claude that claims completion
// (EXIT_SIGNAL: true) while it hides the two open items of fix_plan.md — in a code fence, under
// `## Optional`, in a blockquote, behind a zero-width space, deleted, or in an 11 MB plan. The
// hidden items still count as open, the log names them, and the run never ends as done. Ticking
// every item with no measured change is not done either, and neither are test-only loops while
// items are open. Each attack runs the loop in the test's process (tests/helpers/ralph-in-process.ts);
// the run the monitor then shows is the built bin/ralph (npm run build).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCallScript } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli, type CliResult } from '../../helpers/run-cli.js';
import { runRalphInProcess } from '../../helpers/ralph-in-process.js';
import { ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const PLAN = '# Fix Plan\n- [ ] write the parser\n- [ ] write the printer\n';
const MAX_LOOPS = 5;

const cleanups = useCleanups();

interface Ran {
  result: CliResult;
  log: string;
  exitReason: unknown;
  calls: number;
}

async function runAttack(calls: FakeCallScript[], rc = ''): Promise<Ran> {
  const project = tmpProject(
    ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}COMPLETION_CONFLICT_LIMIT=3\n${rc}`, '.ralph/fix_plan.md': PLAN, 'src/app.txt': 'v0\n' }),
    { git: true },
  );
  cleanups.push(() => project.cleanup());
  const fake = withFakeClaude({ calls });
  cleanups.push(() => fake.cleanup());
  const result = await runRalphInProcess(project.dir, ['--max-loops', String(MAX_LOOPS)], fake.env);
  const log = readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8');
  const status = JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8')) as Record<string, unknown>;
  return { result, log, exitReason: status.exit_reason, calls: fake.runs().length };
}

const claimDone = (plan: string): FakeCallScript => ({
  resultText: 'All done.',
  writeFiles: { '.ralph/fix_plan.md': plan },
  statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true, TASKS_COMPLETED_THIS_LOOP: 2 },
});

function expectNotDone(ran: Ran): void {
  expect(ran.result.code, ran.result.stderr.slice(-1500)).not.toBe(0);
  expect(['project_complete', 'plan_complete', 'completion_signals', 'test_saturation', 'safety_circuit_breaker']).not.toContain(ran.exitReason);
}

const HIDINGS: Array<[string, string]> = [
  ['moved into a code fence', '# Fix Plan\n```\n- [ ] write the parser\n- [ ] write the printer\n```\n'],
  ['moved under ## Optional', '# Fix Plan\n## Optional\n- [ ] write the parser\n- [ ] write the printer\n'],
  ['moved into a blockquote', '# Fix Plan\n> - [ ] write the parser\n> - [ ] write the printer\n'],
  ['made unreadable with a zero-width space in [ ]', '# Fix Plan\n- [\u200b] write the parser\n- [\u200b] write the printer\n'],
  ['deleted', '# Fix Plan\nNothing left.\n'],
];

describe('open plan items the agent hides still count as open', () => {
  for (const [how, plan] of HIDINGS) {
    it(`${how}: no completion exit, and the log names the hidden items`, async () => {
      const ran = await runAttack([claimDone(plan)]);
      expectNotDone(ran);
      expect(ran.result.code).toBe(2);
      expect(ran.log).toMatch(
        /(the agent removed 2 open items|2 open items moved under an optional section) of fix_plan\.md; they count as still open: write the parser; write the printer/,
      );
    });
  }

  it('an 11 MB plan ralph cannot read in full blocks the completion exit', async () => {
    const huge = `# Fix Plan\nRemaining tasks: 0\n${'x'.repeat(80)}\n`.repeat(140_000);
    const ran = await runAttack([claimDone(huge)]);
    expectNotDone(ran);
    expect(ran.log).toContain('fix_plan.md cannot be read in full');
  });

  it('ticking every item in a loop with no measured change is not done', async () => {
    const ran = await runAttack([
      {
        writeFiles: { '.ralph/fix_plan.md': '# Fix Plan\n- [x] write the parser\n- [x] write the printer\n' },
        statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
      },
    ]);
    expectNotDone(ran);
    expect(ran.log).toContain('2 open items ticked in a loop with no measured new content');
  });

  it('WORK_TYPE: TESTING loops do not end the run while items are open', async () => {
    const testing = (n: number): FakeCallScript => ({
      writeFiles: { [`src/part${n}.txt`]: `part ${n}\n` },
      statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false, WORK_TYPE: 'TESTING' },
    });
    const ran = await runAttack(Array.from({ length: MAX_LOOPS }, (_, i) => testing(i + 1)));
    expectNotDone(ran);
    expect(ran.calls).toBe(MAX_LOOPS);
  });

  it('an honest agent that ticks an item with real work each loop finishes with plan_complete', async () => {
    const work = (n: number, plan: string): FakeCallScript => ({
      writeFiles: { [`src/part${n}.txt`]: `part ${n}\n`, '.ralph/fix_plan.md': plan },
      statusBlock: { STATUS: n === 2 ? 'COMPLETE' : 'IN_PROGRESS', EXIT_SIGNAL: n === 2 },
    });
    const ran = await runAttack([
      work(1, '# Fix Plan\n- [x] write the parser (done in src/part1.txt)\n- [ ] write the printer\n'),
      work(2, '# Fix Plan\n- [x] write the parser (done in src/part1.txt)\n- [x] write the printer\n'),
    ]);
    expect(ran.result.code, ran.result.stderr.slice(-1500)).toBe(0);
    expect(ran.calls).toBe(2);
    expect(ran.log).not.toContain('count as still open');
  });
});

describe('the dashboard names hidden plan items too', () => {
  it('after the agent deleted the open items, ralph-monitor --once says so, as the log does', async () => {
    const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': PLAN, 'src/app.txt': 'v0\n' }), { git: true });
    cleanups.push(() => project.cleanup());
    const fake = withFakeClaude({
      calls: [
        {
          writeFiles: { '.ralph/fix_plan.md': '# Fix Plan\nNothing left.\n', 'src/app.txt': 'v1\n' },
          statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
        },
      ],
    });
    cleanups.push(() => fake.cleanup());
    const run = await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env: fake.env });
    expect(run.code, run.stderr.slice(-1500)).toBe(3);
    expect(run.stderr).toContain('the agent removed 2 open items of fix_plan.md');

    const frame = await runCli('ralph-monitor', ['--once'], { cwd: project.dir, env: { ...fake.env, COLUMNS: '200', LINES: '60' } });
    expect(frame.code, frame.stderr).toBe(0);
    expect(frame.stdout).toContain('⚠ the agent removed 2 open items of fix_plan.md; they count as still open: write the parser; write the printer');
  });
});
