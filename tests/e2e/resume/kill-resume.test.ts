// The real `bin/ralph` killed with SIGKILL during loop 3 (the fake's third call hangs), then
// started again: the run resumes at loop 3 with loops 1 and 2 kept and the call of loop 3
// marked cut off (it was saved before the agent started); `--fresh` instead starts a new run
// at loop 1 with a new id. Uses the built dist/ (npm run build).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../../lib/run-record/record-schema.js';
import { withFakeClaude, type FakeCallScript, type FakeClaude, killUnfinishedCalls } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { loopContextIn, readRunRecords } from '../../integration/verify-loop/verify-loop-fixture.js';
import { useCleanups } from '../../helpers/cleanups.js';

const PLAN = '# Fix Plan\n- [ ] one\n- [ ] two\n- [ ] three\n';
const work = (n: number): FakeCallScript => ({
  tickFixPlan: 1,
  writeFiles: { [`src/part${n}.ts`]: `export const part${n} = ${n};\n` },
  statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
});
const finishAll: FakeCallScript = { tickFixPlan: 'all', writeFiles: { 'src/done.ts': 'export {};\n' }, statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } };

const cleanups = useCleanups();

interface KilledRun {
  project: TmpProject;
  fake: FakeClaude;
  record: RunRecord;
}

/** Run ralph until the fake's third call (loop 3) has started, then SIGKILL it. */
async function killDuringLoop3(): Promise<KilledRun> {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': PLAN }), { git: true });
  cleanups.push(() => project.cleanup());
  const fake = withFakeClaude({ calls: [work(1), work(2), { hang: 'afterInit' }, finishAll] });
  cleanups.push(() => fake.cleanup());
  // The hanging agent runs in its own process group, which outlives a SIGKILLed ralph.
  cleanups.push(() => killUnfinishedCalls(fake));

  let killed = false;
  const result = await runCli('ralph', [], {
    cwd: project.dir,
    env: fake.env,
    onSpawn: (child) => {
      const timer = setInterval(() => {
        if (killed || fake.runs().length < 3) return;
        killed = true;
        clearInterval(timer);
        child.kill('SIGKILL');
      }, 25);
      child.on('exit', () => clearInterval(timer));
    },
  });
  expect(killed).toBe(true);
  expect(result.signal).toBe('SIGKILL');
  killUnfinishedCalls(fake);
  const records = readRunRecords(project.dir);
  expect(records).toHaveLength(1);
  return { project, fake, record: records[0]! };
}

describe('ralph after kill -9', () => {
  it('resumes the run at loop 3 with the earlier attempts intact', async () => {
    const { project, fake, record: before } = await killDuringLoop3();
    // What the kill left: a valid record with loops 1 and 2 finished and loop 3's call running.
    expect(before.status).toBe('active');
    expect(before.attempts.map((a) => `${a.loop}:${a.state}`)).toEqual(['1:finished', '2:finished', '3:running']);

    const result = await runCli('ralph', [], { cwd: project.dir, env: fake.env });
    expect(result.code).toBe(0);
    const log = readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8');
    expect(log).toContain(
      `Resuming run ${before.run_id} at loop 3 (2 earlier attempts kept; the attempt of loop 3 was cut off and runs again); use --fresh to start a new run`,
    );

    const runs = fake.runs();
    expect(runs).toHaveLength(4);
    const context = loopContextIn(runs[3]!.stdin);
    expect(context).toMatch(/^Loop #3\./);
    expect(context).toContain(`Earlier attempts in this run (${before.run_id}), oldest first:`);

    const [after] = readRunRecords(project.dir);
    expect(after!.run_id).toBe(before.run_id);
    expect(after!.status).toBe('converged');
    expect(after!.resumes).toEqual([{ at: expect.any(String), next_loop: 3, cut_off_loops: [3] }]);
    expect(after!.attempts.map((a) => `${a.loop}:${a.state}`)).toEqual(['1:finished', '2:finished', '3:cut-off', '3:finished']);
    expect(after!.attempts.slice(0, 2)).toEqual(before.attempts.slice(0, 2));
    expect(after!.attempts[2]).toMatchObject({ ...before.attempts[2], state: 'cut-off', action: 'agent call (cut off)' });

    const status = await runCli('ralph', ['--status', '--json'], { cwd: project.dir });
    expect(JSON.parse(status.stdout).session_record).toMatchObject({ run_id: before.run_id, status: 'converged', attempts: 4, resumes: 1 });
  });

  it('--fresh starts at loop 1 with a new run id', async () => {
    const { project, fake, record: before } = await killDuringLoop3();

    const result = await runCli('ralph', ['--fresh'], { cwd: project.dir, env: fake.env });
    expect(result.code).toBe(0);
    const runs = fake.runs();
    expect(runs).toHaveLength(4);
    expect(loopContextIn(runs[3]!.stdin)).toMatch(/^Loop #1\./);

    const records = readRunRecords(project.dir);
    expect(records).toHaveLength(2);
    const old = records.find((r) => r.run_id === before.run_id)!;
    const fresh = records.find((r) => r.run_id !== before.run_id)!;
    expect(old).toMatchObject({
      status: 'failed',
      attempts: [...before.attempts.slice(0, 2), { ...before.attempts[2], state: 'cut-off', action: 'agent call (cut off)' }],
    });
    expect(old.status_history.at(-1)!.reason).toBe('superseded: ralph --fresh started a new run');
    expect(fresh).toMatchObject({ status: 'converged', resumes: [] });
    expect(fresh.attempts.map((a) => a.loop)).toEqual([1]);
    const log = readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8');
    expect(log).toContain(`Starting a new run (--fresh); unfinished run ${before.run_id} (2 finished attempts) closed as failed: run ${fresh.run_id}`);
  });
});
