// The plan's memory outlives the process: the real `bin/ralph` against a fake Claude that ticks
// every item of fix_plan.md without doing any work. ralph counts them as still open; then the
// run is interrupted (SIGINT, SIGTERM, kill -9) or simply ends, and `ralph` is started again.
// The new process still counts the items as open (it never ends as plan_complete, never exits 0
// after 0 calls) until a loop with measured new content ticks them, or the user accepts one by
// name (`ralph --accept-item`). `ralph --status` (plain and --json) lists what is held open.
// Uses the built dist/ (npm run build).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, killUnfinishedCalls, type FakeCallScript, type FakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli, type CliResult } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const PLAN = '# Fix Plan\n- [ ] write the parser\n- [ ] write the printer\n';
const TICKED = '# Fix Plan\n- [x] write the parser\n- [x] write the printer\n';
const tickWithoutWork: FakeCallScript = { writeFiles: { '.ralph/fix_plan.md': TICKED }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } };
const idle: FakeCallScript = { resultText: 'Looked around.', statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } };
const hang: FakeCallScript = { hang: 'afterInit' };
const realWork: FakeCallScript = {
  writeFiles: { 'src/parser.txt': 'parser\n', 'src/printer.txt': 'printer\n' },
  statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
};

const cleanups = useCleanups();

function setUp(calls: FakeCallScript[]): { project: TmpProject; fake: FakeClaude } {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': PLAN, 'src/app.txt': 'v0\n' }), { git: true });
  cleanups.push(() => project.cleanup());
  const fake = withFakeClaude({ calls });
  cleanups.push(() => fake.cleanup());
  cleanups.push(() => killUnfinishedCalls(fake));
  return { project, fake };
}

const exitReasonOf = (project: TmpProject) => (JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8')) as { exit_reason?: string }).exit_reason;
const logOf = (project: TmpProject) => readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8');

/** Runs ralph until the fake's `call`th call has started, then sends `signal`. */
async function interruptAtCall(project: TmpProject, fake: FakeClaude, call: number, signal: NodeJS.Signals): Promise<CliResult> {
  let sent = false;
  const result = await runCli('ralph', ['--max-loops', '10'], {
    cwd: project.dir,
    env: fake.env,
    onSpawn: (child) => {
      const timer = setInterval(() => {
        if (sent || fake.runs().length < call) return;
        sent = true;
        clearInterval(timer);
        child.kill(signal);
      }, 25);
      child.on('exit', () => clearInterval(timer));
    },
  });
  expect(sent).toBe(true);
  killUnfinishedCalls(fake);
  return result;
}

function expectNotDone(result: CliResult, project: TmpProject): void {
  expect(result.code, result.stderr.slice(-1500)).not.toBe(0);
  expect(['plan_complete', 'project_complete', 'completion_signals', 'test_saturation', 'safety_circuit_breaker']).not.toContain(exitReasonOf(project));
}

describe('items ticked without measured work stay open in the next process', () => {
  it('a plain second ralph neither exits 0 after 0 calls nor ends as plan_complete', async () => {
    const { project, fake } = setUp([tickWithoutWork, idle]);
    const first = await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env: fake.env });
    expect(first.code, first.stderr.slice(-1500)).toBe(3);
    expect(logOf(project)).toContain(
      '2 open items ticked in a loop with no measured new content of fix_plan.md; they count as still open: write the parser; write the printer',
    );

    const second = await runCli('ralph', ['--max-loops', '2'], { cwd: project.dir, env: fake.env });
    expectNotDone(second, project);
    expect(fake.runs().length).toBeGreaterThan(1);
    expect(second.stderr).toContain('2 open items ticked in a loop with no measured new content of fix_plan.md');
  });

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGKILL'] as const) {
    it(`interrupted with ${signal} after the tick, the resumed run still counts the items as open`, async () => {
      const { project, fake } = setUp([tickWithoutWork, hang, idle]);
      const interrupted = await interruptAtCall(project, fake, 2, signal);
      if (signal === 'SIGKILL') expect(interrupted.signal).toBe('SIGKILL');
      else expect(interrupted.code).toBe(signal === 'SIGINT' ? 130 : 143);

      const resumed = await runCli('ralph', ['--max-loops', '4'], { cwd: project.dir, env: fake.env });
      expectNotDone(resumed, project);
      expect(fake.runs().length).toBeGreaterThan(2);
      expect(resumed.stderr).toContain('ticked in a loop with no measured new content of fix_plan.md; they count as still open');
    });
  }

  it('a loop with measured new content that keeps the ticks makes them done, in the next process too', async () => {
    const { project, fake } = setUp([tickWithoutWork, realWork]);
    await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env: fake.env });
    const second = await runCli('ralph', ['--max-loops', '3'], { cwd: project.dir, env: fake.env });
    expect(second.code, second.stderr.slice(-1500)).toBe(0);
    expect(fake.runs()).toHaveLength(2);
  });
});

describe('the user says otherwise: ralph --accept-item', () => {
  it('--status lists the held items by number; accepting both by number and by text ends the hold', async () => {
    const { project, fake } = setUp([tickWithoutWork, idle]);
    await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env: fake.env });

    const plain = await runCli('ralph', ['--status'], { cwd: project.dir });
    expect(plain.stdout).toContain(
      'Plan items ralph counts as open (fix_plan.md shows them otherwise):\n  1. write the parser (ticked without measured change)\n  2. write the printer (ticked without measured change)\n',
    );
    expect(plain.stdout).toContain('ralph --accept-item N');
    const json = JSON.parse((await runCli('ralph', ['--status', '--json'], { cwd: project.dir })).stdout) as { plan_held_open: unknown };
    expect(json.plan_held_open).toEqual([
      { number: 1, text: 'write the parser', how: 'ticked without measured change' },
      { number: 2, text: 'write the printer', how: 'ticked without measured change' },
    ]);

    const missing = await runCli('ralph', ['--accept-item', 'the lexer'], { cwd: project.dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("--accept-item: no item ralph holds open matches 'the lexer'");

    const byNumber = await runCli('ralph', ['--accept-item', '2'], { cwd: project.dir });
    expect(byNumber.code, byNumber.stderr).toBe(0);
    expect(byNumber.stdout).toContain('Accepted: write the printer (ticked without measured change)');
    const byText = await runCli('ralph', ['--accept-item', 'Write the PARSER'], { cwd: project.dir });
    expect(byText.code, byText.stderr).toBe(0);

    const after = await runCli('ralph', ['--max-loops', '3'], { cwd: project.dir, env: fake.env });
    expect(after.code, after.stderr.slice(-1500)).toBe(0);
    expect(exitReasonOf(project)).toBe('plan_complete');
    expect(fake.runs()).toHaveLength(1);
  });
});
