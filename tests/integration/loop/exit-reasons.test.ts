// The loop stops for the right reason: plan complete, project complete, completion conflict,
// max loops, dry run — end to end with the fake claude, real git and real files.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loopProject, type LoopProject } from '../../helpers/loop-harness.js';
import type { FakeScenario } from '../../helpers/fake-claude.js';
import { loopContextIn } from '../verify-loop/verify-loop-fixture.js';

const PLAN3 = '# Fix Plan\n- [ ] one\n- [ ] two\n- [ ] three\n';
const status = (block: Record<string, string | boolean | number>) => ({ statusBlock: block });

let current: LoopProject | undefined;
afterEach(() => {
  current?.cleanup();
  current = undefined;
});

function setup(scenario: FakeScenario, files: Record<string, string> = {}): LoopProject {
  current = loopProject(scenario, { files });
  return current;
}

describe('ralph loop exit reasons', () => {
  it('works through three items, one per call, and stops with plan_complete', async () => {
    const calls = [1, 2, 3].map((n) => ({
      tickFixPlan: 1,
      writeFiles: { [`src/part${n}.ts`]: `export const part${n} = ${n};\n` },
      gitAdd: true,
      ...status({ STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false }),
    }));
    const p = setup({ calls }, { '.ralph/fix_plan.md': PLAN3 });
    const result = await p.run();
    expect(result.exitCode).toBe(0);
    expect(p.fake.runs()).toHaveLength(3);
    const s = p.status()!;
    expect(s.exit_reason).toBe('plan_complete');
    expect(s.status).toBe('completed');
    const outputs = readdirSync(p.project.path('.ralph/logs')).filter((f) => f.startsWith('claude_output_'));
    expect(outputs).toHaveLength(3);
    expect(readFileSync(p.project.path('.ralph/fix_plan.md'), 'utf8')).not.toContain('- [ ]');
  });

  it('makes no call when the plan is already complete', async () => {
    const p = setup({ calls: [{ resultText: 'should not run' }] }, { '.ralph/fix_plan.md': '- [x] done\n- [X] also\n' });
    const result = await p.run();
    expect(result.exitCode).toBe(0);
    expect(p.fake.runs()).toHaveLength(0);
    expect(p.status()!.exit_reason).toBe('plan_complete');
  });

  it('ends with project_complete after two EXIT_SIGNAL: true loops when no blocking item is open', async () => {
    const done = { writeFiles: { 'notes.md': 'x' }, ...status({ STATUS: 'COMPLETE', EXIT_SIGNAL: true }) };
    const p = setup({ calls: [done, { ...done, writeFiles: { 'notes.md': 'y' } }] }, { '.ralph/fix_plan.md': '# Plan\nNo checklist yet.\n' });
    const result = await p.run();
    expect(result.exitCode).toBe(0);
    expect(p.fake.runs()).toHaveLength(2);
    expect(p.status()!.exit_reason).toBe('project_complete');
  });

  it('goes on when STATUS: COMPLETE comes with EXIT_SIGNAL: false', async () => {
    const call = { writeFiles: { 'a.txt': 'a' }, ...status({ STATUS: 'COMPLETE', EXIT_SIGNAL: false }) };
    const p = setup({ calls: [call] }, { '.ralph/fix_plan.md': '# Plan\nNothing listed.\n' });
    const result = await p.run({ MAX_LOOPS: 3 });
    expect(result.exitCode).toBe(3);
    expect(p.fake.runs()).toHaveLength(3);
    expect(p.status()!.exit_reason).toBe('max_loops_reached');
  });

  it('halts with completion_conflict when the agent claims completion while items stay open', async () => {
    const claim = { writeFiles: { 'x.txt': 'x' }, ...status({ STATUS: 'COMPLETE', EXIT_SIGNAL: true }) };
    const p = setup(
      { calls: [claim, { ...claim, writeFiles: { 'x.txt': 'y' } }, { ...claim, writeFiles: { 'x.txt': 'z' } }, claim] },
      { '.ralph/fix_plan.md': '- [ ] write the parser\n- [ ] add tests\n' },
    );
    const result = await p.run();
    expect(result.exitCode).toBe(2);
    const runs = p.fake.runs();
    expect(runs).toHaveLength(3);
    expect(p.status()!.exit_reason).toBe('completion_conflict');
    for (const run of runs.slice(1)) {
      const context = loopContextIn(run.stdin);
      expect(context).toContain('write the parser');
      expect(context).toContain('add tests');
    }
    const first = loopContextIn(runs[0]!.stdin);
    expect(first).toMatch(/^Loop #1\./);
    expect(first).not.toContain('write the parser');
  });

  it('--dry-run ends by itself, exit 0, without calling the agent', async () => {
    const p = setup({ calls: [{ resultText: 'never' }] }, { '.ralph/fix_plan.md': PLAN3 });
    const result = await p.run({ DRY_RUN: true, MAX_LOOPS: 2 });
    expect(result.exitCode).toBe(0);
    expect(p.fake.runs()).toHaveLength(0);
    expect(result.stdout.text).toContain('[DRY RUN] Loop #1 would execute:');
    expect(result.stdout.text).toContain('[DRY RUN] Loop #2 would execute:');
    expect(result.stdout.text).toContain('--output-format stream-json --verbose');
    expect(existsSync(p.project.path('.ralph/.call_count'))).toBe(true);
    expect(readFileSync(p.project.path('.ralph/.call_count'), 'utf8').trim()).toBe('0');
  });
});
