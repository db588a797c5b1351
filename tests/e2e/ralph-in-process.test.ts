// runRalphInProcess (tests/helpers/ralph-in-process.ts) runs the loop as `bin/ralph` does: the
// same scripted agent on the same project ends the same way through both (exit code, status.json,
// agent calls, the log's closing summary), a loop its test leaves behind is stopped, and the
// helper refuses what it does not run.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../helpers/cleanups.js';
import { withFakeClaude, type FakeClaude, type FakeScenario } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runRalphInProcess } from '../helpers/ralph-in-process.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';
import { waitFor } from '../integration/monitor/tmux-harness.js';

const cleanups = useCleanups();

const PLAN = '# Fix Plan\n- [ ] Add notes.txt\n';
const done: FakeScenario = { calls: [{ resultText: 'Added notes.txt.', tickFixPlan: 1, writeFiles: { 'notes.txt': 'notes\n' } }] };
const idle: FakeScenario = { calls: [{ resultText: 'Still reading.', statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } }] };

interface Ending {
  code: number | null;
  exitReason: unknown;
  loops: unknown;
  calls: number;
  summary: boolean;
  /** The levels the log has lines of (DEBUG only with --verbose). */
  levels: string[];
}

/** One project and fake agent, run by `run`; what the run ended as. */
async function endOf(
  scenario: FakeScenario,
  argv: string[],
  run: (dir: string, argv: string[], env: Record<string, string>) => Promise<CliResult>,
): Promise<Ending> {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': PLAN }), { git: true });
  cleanups.push(() => project.cleanup());
  const fake = withFakeClaude(scenario);
  cleanups.push(() => fake.cleanup());
  const result = await run(project.dir, argv, fake.env);
  const status = JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8')) as Record<string, unknown>;
  const log = readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8');
  const levels = [...new Set([...log.matchAll(/\[(DEBUG|INFO|WARN|ERROR|SUCCESS)\]/g)].map((match) => match[1]!))].sort();
  return {
    code: result.code,
    exitReason: status.exit_reason,
    loops: status.loop_count,
    calls: fake.runs().length,
    summary: log.includes('] Run summary'),
    levels,
  };
}

const bin = (dir: string, argv: string[], env: Record<string, string>) => runCli('ralph', argv, { cwd: dir, env });

describe('runRalphInProcess', () => {
  it.each([
    ['a finished plan', done, ['--max-loops', '3']],
    ['the loop limit', idle, ['--max-loops', '1']],
    ['--verbose', done, ['--max-loops', '3', '--verbose']],
  ] as const)('ends as bin/ralph does: %s', async (_name, scenario, argv) => {
    const inProcess = await endOf(scenario, [...argv], runRalphInProcess);
    expect(inProcess).toEqual(await endOf(scenario, [...argv], bin));
    expect(inProcess.summary).toBe(true);
  });

  it('ends a bad flag value as bin/ralph does: its exit code and message', async () => {
    const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git: true });
    cleanups.push(() => project.cleanup());
    const inProcess = await runRalphInProcess(project.dir, ['--max-loops', 'many']);
    const command = await runCli('ralph', ['--max-loops', 'many'], { cwd: project.dir });
    expect({ code: inProcess.code, stderr: inProcess.stderr }).toEqual({ code: command.code, stderr: command.stderr });
    expect(inProcess.code).not.toBe(0);
  });

  let left: { result: Promise<CliResult>; fake: FakeClaude; cleanup: () => void } | undefined;
  it('a loop still running when its test ends is stopped (this test ends while the agent hangs)', async () => {
    // Removed by the next test: the loop must find its project when the end of this one stops it.
    const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': PLAN }), { git: true });
    const fake = withFakeClaude({ calls: [{ hang: 'afterInit', hangMaxMs: 60_000 }] });
    const result = runRalphInProcess(project.dir, ['--max-loops', '1'], fake.env);
    left = { result, fake, cleanup: () => (project.cleanup(), fake.cleanup()) };
    await waitFor('the agent to start', () => fake.runs().length > 0, 20_000);
  });

  it('… and ends as a run stopped by SIGTERM ends, its agent stopped too', async () => {
    cleanups.push(left!.cleanup);
    const stopped = await left!.result;
    expect(stopped.code, stopped.stderr.slice(-1500)).toBe(143);
    expect(left!.fake.runs()[0]).toMatchObject({ finished: true, signal: 'SIGTERM' });
  });

  it("refuses ralph's other actions, its web view and parallel units", async () => {
    const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git: true });
    cleanups.push(() => project.cleanup());
    await expect(runRalphInProcess(project.dir, ['--status'])).rejects.toThrow("not ralph's status");
    await expect(runRalphInProcess(project.dir, ['--web'])).rejects.toThrow("not ralph's web view");
    await expect(runRalphInProcess(project.dir, ['--parallel', '2'])).rejects.toThrow('not parallel units');
  });
});
