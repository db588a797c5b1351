// `ralph --parallel` stopped with Ctrl-C while three agents are in flight: every agent's
// process is gone, the worktrees and the run's state are kept, exit 130; `ralph --parallel`
// again resumes the same run and finishes it.

import { afterEach, describe, expect, it } from 'vitest';
import { isProcessRunning as isAlive } from '../../helpers/process-state.js';
import { runCli } from '../../helpers/run-cli.js';
import { doesItem, HANGS, interruptWithAgentsInFlight, LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

let p: ParallelProject | undefined;
afterEach(() => p?.cleanup());

describe('ralph --parallel: interrupt and resume', () => {
  it(
    'Ctrl-C stops all three agents (exit 130, worktrees kept); running it again finishes the run',
    async () => {
      p = parallelProject(['Add alpha', 'Add beta', 'Add gamma'], { calls: [HANGS] });
      const stopped = await interruptWithAgentsInFlight(p, 'ralph', ['--parallel', '3'], 3);
      expect(stopped.code, stopped.stderr).toBe(130);
      const agents = p.claude.runs();
      expect(agents).toHaveLength(3);
      for (const call of agents) {
        expect(isAlive(call.pid), `agent ${call.pid}`).toBe(false);
        expect(isAlive(call.childPid!), `agent child ${call.childPid}`).toBe(false);
      }
      const state = p.state();
      expect(state.units.map((u) => u.state)).toEqual(['running', 'running', 'running']);
      expect(p.worktrees().sort()).toEqual(['add-alpha', 'add-beta', 'add-gamma'].map((slug) => `${state.run_id as string}-${slug}`));
      expect(p.plan()).toContain('- [ ] Add alpha\n- [ ] Add beta\n- [ ] Add gamma\n');

      p.claude.setScenario({
        calls: [
          doesItem('Add alpha', { 'alpha.txt': 'alpha\n' }),
          doesItem('Add beta', { 'beta.txt': 'beta\n' }),
          doesItem('Add gamma', { 'gamma.txt': 'gamma\n' }),
        ],
      });
      const resumed = await runCli('ralph', ['--parallel', '3'], { cwd: p.project.dir, env: p.env });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain(`Resuming parallel run ${state.run_id as string} on main: 3 of 3 unit(s) not merged yet`);
      expect(p.plan()).toContain('- [x] Add alpha\n- [x] Add beta\n- [x] Add gamma\n');
      expect(p.project.git('show', 'HEAD:gamma.txt')).toBe('gamma\n');
      expect(p.worktrees()).toEqual([]);
      expect(p.branches()).toEqual(['main']);
    },
    LONG,
  );
});
