// An agent that swaps fix_plan.md, AGENT.md or a state file for a FIFO cannot hang ralph: every
// control and state file is checked to be a regular file before it is opened, the FIFO is a
// clear error naming it (or, for a state file, a warning and the default), and SIGTERM still
// stops ralph.

import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli, type CliResult } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

/** ralph with an agent that replaces `file` by a FIFO; SIGTERM after 15 s if it hangs, SIGKILL after 25 s. */
async function runWithFifo(file: string): Promise<{ r: CliResult; p: TmpProject; sigtermed: () => boolean }> {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}ALLOWED_TOOLS=Bash\n`, '.ralph/AGENT.md': '# build\n' }), { git: true });
  const f = withFakeClaude({
    defaults: {
      steps: [{ tool: 'Bash', input: { command: `rm -f ${file} && mkfifo ${file}` }, exec: true }],
      writeFiles: { 'out.txt': 'work' },
      statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
    },
  });
  cleanups.push(
    () => p.cleanup(),
    () => f.cleanup(),
  );
  let sigterm = false;
  const r = await runCli('ralph', ['--max-loops', '2'], {
    cwd: p.dir,
    env: f.env,
    onSpawn: (child) => {
      const term = setTimeout(() => {
        sigterm = true;
        child.kill('SIGTERM');
      }, 15_000);
      const kill = setTimeout(() => child.kill('SIGKILL'), 25_000);
      child.on('exit', () => {
        clearTimeout(term);
        clearTimeout(kill);
      });
    },
  });
  return { r, p, sigtermed: () => sigterm };
}

describe('a FIFO in place of a control or state file', () => {
  it.each(['.ralph/fix_plan.md', '.ralph/AGENT.md'])(
    '%s is a clear error, no hang',
    async (file) => {
      const { r, sigtermed } = await runWithFifo(file);
      expect(r.signal).toBeNull();
      expect(sigtermed()).toBe(false);
      expect(r.code).toBe(1);
      const errors = r.stderr.split('\n').filter((line) => line.startsWith('Error:'));
      expect(errors).toEqual([`Error: ${file} is a named pipe (FIFO), not a file`]);
    },
    40_000,
  );

  it('a state file (.ralph/status.json) read by ralph --status is reported, no hang', async () => {
    const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git: true });
    cleanups.push(() => p.cleanup());
    execFileSync('mkfifo', [p.path('.ralph/status.json')]);
    const r = await runCli('ralph', ['--status'], {
      cwd: p.dir,
      onSpawn: (child) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.on('exit', () => clearTimeout(timer));
      },
    });
    expect(r.signal).toBeNull();
    expect(r.stdout + r.stderr).toMatch(/status\.json is a named pipe \(FIFO\)/);
  }, 30_000);
});
