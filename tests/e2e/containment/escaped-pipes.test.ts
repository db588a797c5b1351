// A process the agent started with `setsid` leaves the agent's process group, so the group kill
// cannot reach it, and it holds the agent's stdout and stderr open. Once the agent itself has
// exited, ralph drains those pipes for a bounded time, closes them, warns that a process
// escaped, and goes on with the agent's real exit code: no hang. The test timeout is the only clock.
// The daemon also wiped its environment, so ralph's after-call sweep of processes carrying the
// run's mark (RALPH_RUN_ID) cannot find it either: the drain alone must end the call.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { isProcessRunning } from '../../helpers/process-state.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

describe('a daemon that escaped the agent group with the agent output', () => {
  it('does not hang ralph: pipes closed after the drain, warning printed, the call counted as the success it was', async () => {
    const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git: true });
    const f = withFakeClaude({
      calls: [
        {
          spawnChild: { setsid: true, holdStdout: true, cleanEnv: true, lifetimeMs: 120_000 },
          writeFiles: { 'a.txt': 'a\n' },
          statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
        },
      ],
    });
    cleanups.push(
      () => p.cleanup(),
      () => f.cleanup(),
      () => {
        const daemon = f.runs()[0]?.childPid;
        if (daemon !== undefined) process.kill(daemon, 'SIGKILL');
      },
    );
    const r = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env: f.env });
    const [call] = f.runs();
    // The daemon really escaped and still runs: nothing ralph can kill held the pipes.
    expect(isProcessRunning(call!.childPid!)).toBe(true);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("A process escaped the agent's process group and held its output open");
    const metrics = readFileSync(p.path('.ralph/logs/metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { success: boolean });
    expect(metrics.map((m) => m.success)).toEqual([true]);
  }, 20_000);
});
