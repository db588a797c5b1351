// `ralph-queue process` beside another run in the same project: a second queue run, or a queue
// run started while a plain `ralph` loop works. The newcomer must be refused before it touches
// anything: not the running item's status in queue.json, not the fix_plan.md the running agent
// is working through. And the agent itself, which can write queue.json, decides no item's fate.

import { readFileSync, writeFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude, type FakeScenario } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { queueInProcess } from '../helpers/queue-in-process.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { withFakeTaskClis, type FakeIssue, type FakeTaskClis } from '../integration/bootstrap/fake-task-clis.js';
import { waitFor } from '../integration/monitor/tmux-harness.js';

let project: TmpProject | undefined;
let claude: FakeClaude | undefined;
let clis: FakeTaskClis | undefined;
afterEach(() => {
  project?.cleanup();
  claude?.cleanup();
  clis?.cleanup();
});

const LONG = 120_000;
const hanging: FakeScenario = {
  calls: [{ resultText: 'Working.', statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false }, hang: 'afterInit', hangMaxMs: 60_000 }],
};

function setUp(issues: FakeIssue[]): Record<string, string> {
  project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\n` }), { git: true });
  claude = withFakeClaude(hanging);
  clis = withFakeTaskClis({ gh: { issues } });
  const fakeGh = Object.fromEntries(Object.entries(clis.env).filter(([key]) => key.startsWith('FAKE_GH')));
  return { ...claude.env, ...GIT_TEST_ENV, ...fakeGh, PATH: [clis.binDir, claude.env.PATH].join(delimiter) };
}

const queueStatuses = () =>
  (JSON.parse(readFileSync(project!.path('.ralph/queue.json'), 'utf8')) as { queue: Array<{ issue_number: number; status: string }> }).queue.map((item) => [
    item.issue_number,
    item.status,
  ]);

/** Starts `bin args`, waits until its agent runs, and returns the run plus a way to stop it. */
async function startHanging(bin: string, args: string[], env: Record<string, string>): Promise<{ done: Promise<CliResult>; stop: () => void }> {
  let child: ChildProcess | undefined;
  const done = runCli(bin, args, { cwd: project!.dir, env, onSpawn: (spawned) => (child = spawned) });
  await waitFor('the agent to start', () => claude!.runs().length > 0, 30_000);
  return { done, stop: () => child?.kill('SIGINT') };
}

describe('ralph-queue process while another run works in the project', () => {
  it(
    'a second queue run is refused and changes neither the queue nor the running plan',
    async () => {
      const env = setUp([
        { number: 4, title: 'Four' },
        { number: 5, title: 'Five' },
      ]);
      expect((await queueInProcess(project!.dir, ['add', '4', '5'], env)).code).toBe(0);
      const first = await startHanging('ralph-queue', ['process'], env);
      // The running agent's progress on its plan.
      const plan = project!.path('.ralph/fix_plan.md');
      writeFileSync(plan, readFileSync(plan, 'utf8').replace('- [ ]', '- [x]'));
      const planDuringRun = readFileSync(plan, 'utf8');

      const second = await runCli('ralph-queue', ['process'], { cwd: project!.dir, env });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/Error: Another queue run \(ralph-queue process\) is already working in this project \(pid \d+\)/);
      expect(second.stderr).toContain('.ralph/.queue.lock');
      expect(readFileSync(plan, 'utf8')).toBe(planDuringRun);
      expect(queueStatuses()).toEqual([
        [4, 'processing'],
        [5, 'pending'],
      ]);
      expect(claude!.runs()).toHaveLength(1);

      first.stop();
      expect((await first.done).code).toBe(130);
    },
    LONG,
  );

  it(
    'a queue run is refused while a plain ralph loop runs, before it writes the plan',
    async () => {
      const env = setUp([{ number: 4, title: 'Four' }]);
      expect((await queueInProcess(project!.dir, ['add', '4'], env)).code).toBe(0);
      const loop = await startHanging('ralph', [], env);
      const planDuringRun = readFileSync(project!.path('.ralph/fix_plan.md'), 'utf8');

      const queued = await runCli('ralph-queue', ['process'], { cwd: project!.dir, env });
      expect(queued.code).toBe(1);
      expect(queued.stderr).toMatch(/Error: Another ralph loop is already running in this project \(pid \d+\)/);
      expect(readFileSync(project!.path('.ralph/fix_plan.md'), 'utf8')).toBe(planDuringRun);
      expect(queueStatuses()).toEqual([[4, 'pending']]);

      loop.stop();
      expect((await loop.done).code).toBe(130);
    },
    LONG,
  );
});

describe('an agent that rewrites .ralph/queue.json', () => {
  it(
    'cannot mark the next item completed (or its own failed): the queue run keeps its own statuses',
    async () => {
      const env = setUp([
        { number: 4, title: 'Four' },
        { number: 5, title: 'Five' },
      ]);
      expect((await queueInProcess(project!.dir, ['add', '4', '5'], env)).code).toBe(0);
      const queue = JSON.parse(readFileSync(project!.path('.ralph/queue.json'), 'utf8')) as { queue: Array<{ issue_number: number; status: string }> };
      const forged = { ...queue, queue: queue.queue.map((item) => ({ ...item, status: item.issue_number === 5 ? 'completed' : 'failed' })) };
      const done = (file: string) => ({ resultText: 'Did the task.', tickFixPlan: 'all' as const, writeFiles: { [file]: `${file}\n` } });
      claude!.setScenario({ calls: [{ ...done('a.txt'), writeFiles: { 'a.txt': 'a\n', '.ralph/queue.json': JSON.stringify(forged) } }, done('b.txt')] });

      const run = await runCli('ralph-queue', ['process'], { cwd: project!.dir, env });
      expect(run.code, run.stderr).toBe(0);
      expect(claude!.runs()).toHaveLength(2);
      expect(queueStatuses()).toEqual([
        [4, 'completed'],
        [5, 'completed'],
      ]);
      expect(project!.git('log', '--format=%s').trim().split('\n').slice(0, 2)).toEqual(['Fix #5: Five', 'Fix #4: Four']);
    },
    LONG,
  );
});
