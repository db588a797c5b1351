// `ralph --status` (plain and --json) shows a parallel run — the run, each unit's state, loops
// and cost — while its units run and after the run ended, instead of "No status file found".

import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../helpers/run-cli.js';
import { waitFor } from '../../integration/monitor/tmux-harness.js';
import { doesItem, HANGS, LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

let p: ParallelProject | undefined;
afterEach(() => p?.cleanup());

describe('ralph --status of a parallel run', () => {
  it(
    'shows each unit while two agents are in flight, and the outcome after the run',
    async () => {
      p = parallelProject(['Add alpha', 'Add beta'], { calls: [HANGS] });
      const project = p;
      let during: CliResult | undefined;
      let duringJson: CliResult | undefined;
      const stopped = await runCli('ralph', ['--parallel', '2'], {
        cwd: project.project.dir,
        env: project.env,
        onSpawn: (child) => {
          void waitFor('2 agents in flight', () => project.claude.runs().filter((c) => c.childPid !== undefined).length === 2, 60_000)
            .then(async () => {
              during = await runCli('ralph', ['--status'], { cwd: project.project.dir, env: project.env });
              duringJson = await runCli('ralph', ['--status', '--json', '--jq', '.parallel.units | map([.slug, .state])'], {
                cwd: project.project.dir,
                env: project.env,
              });
            })
            .finally(() => child.kill('SIGINT'));
        },
      });
      expect(stopped.code, stopped.stderr).toBe(130);
      const runId = p.state().run_id as string;
      expect(during!.code).toBe(0);
      expect(during!.stdout).not.toContain('No status file found');
      expect(during!.stdout).toContain(`Parallel run ${runId} into main: not finished, 0 of 2 unit(s) merged, $0.00`);
      expect(during!.stdout).toContain('  add-alpha  running       loops 0 · $0.00\n  add-beta   running       loops 0 · $0.00\n');
      expect(JSON.parse(duringJson!.stdout)).toEqual([
        ['add-alpha', 'running'],
        ['add-beta', 'running'],
      ]);
      // The summary after Ctrl-C says the units were interrupted, not running.
      expect(stopped.stdout).toContain('  add-alpha: interrupted\n');

      p.claude.setScenario({
        calls: [doesItem('Add alpha', { 'alpha.txt': 'alpha\n' }, { costUsd: 0.25 }), doesItem('Add beta', { 'beta.txt': 'beta\n' }, { costUsd: 0.5 })],
      });
      const resumed = await runCli('ralph', ['--parallel', '2'], { cwd: p.project.dir, env: p.env });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain('Unit add-alpha: resumed in');
      expect(resumed.stdout).toMatch(/\n {2}add-alpha: merged \((fast-forward|merge-commit)\)\n/);
      expect(resumed.stdout).not.toContain('merged (merged');
      const after = await runCli('ralph', ['--status'], { cwd: p.project.dir, env: p.env });
      expect(after.stdout).toContain(`Parallel run ${runId} into main: finished, 2 of 2 unit(s) merged, $0.75`);
      expect(after.stdout).toMatch(
        /\n {2}add-alpha {2}merged {8}loops 1 · \$0\.25 · (fast-forward|merge-commit)\n {2}add-beta {3}merged {8}loops 1 · \$0\.50 · (fast-forward|merge-commit)\n/,
      );
    },
    LONG,
  );
});
