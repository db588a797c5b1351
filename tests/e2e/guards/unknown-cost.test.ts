// Calls of unknown cost are not free: the real `bin/ralph` against a fake Claude that kills its
// own CLI every other call (no result line, so no cost), at $0.001 a call, against --max-cost
// 0.01. A call without a cost is charged what it could have cost: the per-call cap it was given
// (--max-budget-usd), else the highest cost of one call seen in the run; the log and the ledger
// say so. Three such calls in a row halt the run.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ledgerPath, readLedger } from '../../../lib/state/ledger.js';
import { homedir } from 'node:os';
import { withFakeClaude, type FakeCallScript, type FakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const PLAN = `# Fix Plan\n${Array.from({ length: 20 }, (_, i) => `- [ ] item ${i + 1}`).join('\n')}\n`;
const paid = (n: number): FakeCallScript => ({
  costUsd: 0.001,
  tickFixPlan: 1,
  writeFiles: { [`src/part${n}.ts`]: `export const part${n} = ${n};\n` },
  statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
});
const killsItsCli = (n: number): FakeCallScript => ({
  writeFiles: { [`src/half${n}.ts`]: `export const half${n} = ${n};\n` },
  crash: { afterLines: 1, signal: 'SIGKILL' },
});
const EVERY_OTHER = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? paid(i + 1) : killsItsCli(i + 1)));

/** A CLI build without `--max-budget-usd` (its own version: ralph keeps the answer per version). */
const WITHOUT_CAP = { FAKE_CLAUDE_WITHOUT_FLAGS: '--max-budget-usd', FAKE_CLAUDE_VERSION: '2.1.901' };

const cleanups = useCleanups();

function setUp(calls: FakeCallScript[], env: Record<string, string> = {}): { project: TmpProject; fake: FakeClaude } {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}SESSION_CONTINUITY=false\n`, '.ralph/fix_plan.md': PLAN }), { git: true });
  cleanups.push(() => project.cleanup());
  const fake = withFakeClaude({ calls }, { env });
  cleanups.push(() => fake.cleanup());
  return { project, fake };
}

const ledgerRun = (project: TmpProject) => readLedger(ledgerPath(project.dir, process.env, homedir()), () => undefined)?.run?.state.spend.run;
const logOf = (project: TmpProject) => readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8');

describe('a call whose cost is unknown is charged what it could have cost', () => {
  it('a CLI without a per-call cap: each is charged the highest cost seen, so --max-cost 0.01 stops after 10 calls', async () => {
    const { project, fake } = setUp(EVERY_OTHER, WITHOUT_CAP);
    const run = await runCli('ralph', ['--max-cost', '0.01', '--max-loops', '40'], { cwd: project.dir, env: fake.env });
    expect(run.code, run.stderr.slice(-2000)).toBe(3);
    expect(run.stderr).toContain('Cost budget reached: spent $0.01 (with $0.005 charged for 5 calls of unknown cost) of --max-cost $0.01');
    expect(fake.runs()).toHaveLength(10);
    expect(logOf(project)).toContain('Claude Code reported no cost for this call (no result line); charged $0.001, the highest cost of one call in this run');
    expect(ledgerRun(project)).toMatchObject({ loops: 10, unknownCostLoops: 5, unknownChargedUsd: expect.closeTo(0.005, 9) });
  });

  it('a CLI given a per-call cap: the call that reported nothing is charged the cap it was given', async () => {
    // Another version: whether a CLI takes the flag is kept per version, and the last test's has not.
    const { project, fake } = setUp(EVERY_OTHER, { FAKE_CLAUDE_VERSION: '2.1.902' });
    const run = await runCli('ralph', ['--max-cost', '0.01', '--max-loops', '40'], { cwd: project.dir, env: fake.env });
    expect(run.code, run.stderr.slice(-2000)).toBe(3);
    expect(fake.runs()).toHaveLength(2);
    expect(logOf(project)).toContain('charged $0.009, the per-call cap it was given (--max-budget-usd)');
  });

  it('three calls of unknown cost in a row halt the run', async () => {
    const { project, fake } = setUp([paid(1), killsItsCli(2), killsItsCli(3), killsItsCli(4), paid(5)], WITHOUT_CAP);
    const run = await runCli('ralph', ['--max-loops', '10'], { cwd: project.dir, env: fake.env });
    expect(run.code, run.stderr.slice(-2000)).toBe(2);
    expect(fake.runs()).toHaveLength(4);
    expect(run.stderr).toContain('3 agent calls in a row ended without reporting their cost (no result line: the CLI was killed or crashed)');
    expect((JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8')) as { exit_reason: string }).exit_reason).toBe('unknown_cost_calls');
  });
});
