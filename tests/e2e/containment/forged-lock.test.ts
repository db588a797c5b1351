// A lock the agent forged cannot make the next ralph kill someone else's processes or refuse to
// start: a process group is stopped only when the leader's start time and executable recorded
// in the lock still match, never pid 1 or ralph's own; a lock naming a live process that is
// not ralph is reported and treated as stale.

import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { isProcessRunning } from '../../helpers/process-state.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

/** A process in a group of its own, standing for any process of the user's; killed after the test. */
function bystander(): ChildProcess {
  const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  cleanups.push(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  });
  return child;
}

function project(lock: Record<string, unknown>): TmpProject {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git: true });
  cleanups.push(() => p.cleanup());
  writeFileSync(p.path('.ralph/.ralph.lock'), JSON.stringify({ startedAt: new Date().toISOString(), host: hostname(), ...lock }));
  return p;
}

async function ralphOneLoop(p: TmpProject) {
  const f = withFakeClaude({ defaults: { writeFiles: { 'out.txt': 'work' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } } });
  cleanups.push(() => f.cleanup());
  const r = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env: f.env });
  return { r, f };
}

const DEAD_PID = 2 ** 22 + 12345; // above pid_max's default: never a live process

describe('a forged lock', () => {
  it('naming a dead ralph and another process group (no start time, no executable) kills nothing', async () => {
    const victim = bystander();
    const p = project({ pid: DEAD_PID, agentPgid: victim.pid });
    const { r, f } = await ralphOneLoop(p);
    expect(isProcessRunning(victim.pid!)).toBe(true);
    expect(r.stderr).toMatch(new RegExp(`process group ${victim.pid}.*not the agent it recorded; left alone`));
    expect(f.runs()).toHaveLength(1);
  }, 40_000);

  it('naming pid 1 as its ralph does not block the start: reported and taken over', async () => {
    const p = project({ pid: 1, agentPgid: 1 });
    const { r, f } = await ralphOneLoop(p);
    expect(r.stderr).toMatch(/lock names pid 1, which is running but is not ralph; taking it over/);
    expect(f.runs()).toHaveLength(1);
    expect(r.code).not.toBe(1);
  }, 40_000);

  it('naming a live process that is not ralph is treated as stale', async () => {
    const other = bystander();
    const p = project({ pid: other.pid });
    const { r, f } = await ralphOneLoop(p);
    expect(r.stderr).toMatch(new RegExp(`lock names pid ${other.pid}, which is running but is not ralph; taking it over`));
    expect(f.runs()).toHaveLength(1);
    expect(isProcessRunning(other.pid!)).toBe(true);
  }, 40_000);
});
