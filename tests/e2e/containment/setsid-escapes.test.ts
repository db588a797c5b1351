// Processes the agent starts in a session of their own (`setsid`) leave its process group, so
// killing the group misses them. ralph marks the agent's environment with the run's id and, at
// the end of each call and on every stop, kills what still carries it: a `setsid sleep` and a
// `setsid bash` that traps TERM do not outlive the call.

import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { isProcessRunning } from '../../helpers/process-state.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const ESCAPE = [
  `setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > .ralph/escaped-sleep.pid`,
  `setsid bash -c 'trap "" TERM; echo $$ > .ralph/escaped-bash.pid; while true; do sleep 1; done' </dev/null >/dev/null 2>&1 &`,
  'sleep 0.5',
].join('\n');

function readPid(p: TmpProject, name: string): number | undefined {
  const file = p.path(`.ralph/${name}`);
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
}

function killAfterTest(p: TmpProject, f: FakeClaude): void {
  cleanups.push(() => {
    const pids = [readPid(p, 'escaped-sleep.pid'), readPid(p, 'escaped-bash.pid'), f.runs()[0]?.childPid];
    for (const pid of pids) {
      if (pid === undefined) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
}

describe("processes that leave the agent's process group", () => {
  it('a setsid sleep, a setsid bash trapping TERM and a setsid child ignoring SIGTERM are gone after the call', async () => {
    const p = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}ALLOWED_TOOLS=Bash\n` }), { git: true });
    const f = withFakeClaude({
      defaults: {
        steps: [{ tool: 'Bash', input: { command: ESCAPE }, exec: true }],
        spawnChild: { setsid: true, ignoreSigterm: true, lifetimeMs: 300_000 },
        writeFiles: { 'out.txt': 'work' },
        statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
      },
    });
    cleanups.push(
      () => p.cleanup(),
      () => f.cleanup(),
    );
    killAfterTest(p, f);
    const r = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env: f.env });
    const pids = [readPid(p, 'escaped-sleep.pid'), readPid(p, 'escaped-bash.pid'), f.runs()[0]?.childPid];
    expect(
      pids.every((pid) => pid !== undefined && pid > 0),
      JSON.stringify(pids),
    ).toBe(true);
    for (const pid of pids) expect(isProcessRunning(pid!), `pid ${pid}`).toBe(false);
    expect(r.stderr, r.stderr).toMatch(/Killed \d+ process\(es\) the agent left running outside its process group/);
  }, 60_000);
});
