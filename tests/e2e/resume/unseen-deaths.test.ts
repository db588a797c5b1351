// A ralph that dies mid-call (kill -9, the OOM killer, an agent that kills its parent) sees no
// result and cannot tell whose kill it was. Each such call is of unknown cost, and one after
// another they count like calls that reported no cost: the third in a row halts the resumed run
// before it makes another call (unknown_cost_calls), instead of every restart buying one more
// call that is charged nothing. Uses the built dist/.

import { readFileSync, watch } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { paidWorkCall, withFakeClaude, type FakeClaude, killUnfinishedCalls } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const PLAN = `# Fix Plan\n${Array.from({ length: 6 }, (_, i) => `- [ ] item ${i + 1}`).join('\n')}\n`;
const HANG = { hang: 'afterInit' as const };
const cleanups = useCleanups();

/** Runs ralph until the fake's call number `calls` has started, then SIGKILLs ralph and the hung agent. */
async function killDuringCall(project: TmpProject, fake: FakeClaude, calls: number): Promise<void> {
  let killed = false;
  const result = await runCli('ralph', [], {
    cwd: project.dir,
    env: fake.env,
    onSpawn: (child) => {
      const watcher = watch(dirname(fake.logPath), () => check());
      const check = () => {
        if (killed || fake.runs()[calls - 1]?.scenarioCall === undefined) return;
        killed = true;
        watcher.close();
        child.kill('SIGKILL');
        killUnfinishedCalls(fake);
      };
      child.on('exit', () => watcher.close());
      check();
    },
  });
  expect(killed).toBe(true);
  expect(result.signal).toBe('SIGKILL');
  killUnfinishedCalls(fake);
}

describe('ralph killed mid-call again and again', () => {
  it('three unseen deaths in a row halt the resumed run before a fourth call', async () => {
    const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': PLAN }), { git: true });
    cleanups.push(() => project.cleanup());
    const fake = withFakeClaude({ calls: [HANG, HANG, HANG, paidWorkCall(4), paidWorkCall(5), paidWorkCall(6)] });
    cleanups.push(() => fake.cleanup());
    cleanups.push(() => killUnfinishedCalls(fake));

    for (let n = 1; n <= 3; n++) await killDuringCall(project, fake, n);
    expect(fake.runs()).toHaveLength(3);

    const result = await runCli('ralph', ['--max-loops', '5'], { cwd: project.dir, env: fake.env });
    expect(result.code, result.stderr.slice(-2000)).toBe(2);
    expect(fake.runs()).toHaveLength(3);
    const status = JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8')) as Record<string, unknown>;
    expect(status.exit_reason).toBe('unknown_cost_calls');
    expect(readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8')).toContain('3 agent calls in a row ended without reporting their cost');
  });
});
