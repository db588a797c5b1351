// The console of `ralph --parallel N` reads well with N units: one banner, one line per unit
// event (started, each loop, merged), no unit's start-up banner or spinner, exact wording.

import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { doesItem, LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

let p: ParallelProject | undefined;
afterEach(() => p?.cleanup());

describe('ralph --parallel: the console', () => {
  it(
    'prints one banner and one line per unit event, piped',
    async () => {
      p = parallelProject(['Add alpha', 'Add beta', 'Add gamma'], {
        calls: [
          doesItem('Add alpha', { 'alpha.txt': 'alpha\n' }),
          doesItem('Add beta', { 'beta.txt': 'beta\n' }),
          doesItem('Add gamma', { 'gamma.txt': 'gamma\n' }),
        ],
      });
      const run = await runCli('ralph', ['--parallel', '3'], { cwd: p.project.dir, env: p.env });
      expect(run.code, run.stderr).toBe(0);
      const runId = p.state().run_id as string;
      const lines = run.stderr
        .trimEnd()
        .split('\n')
        .map((line) => line.replace(/^\[[\d-]+ [\d:]+\] /, ''));
      // No unit's start-up banner, spinner or info line: only the run's own lines.
      expect(lines.filter((line) => line.startsWith('[add-'))).toEqual([]);
      expect(run.stderr).not.toContain('Ralph loop starting');
      expect(run.stderr).not.toContain('\r');
      expect(lines[0]).toBe(`[INFO] Parallel run ${runId}: 3 unit(s) from fix_plan.md, merged into main`);
      for (const slug of ['add-alpha', 'add-beta', 'add-gamma']) {
        expect(lines.filter((line) => line.includes(`Unit ${slug}`))).toEqual([
          `[INFO] Unit ${slug}: started in .ralph/worktrees/${runId}-${slug} on ralph/${runId}/${slug}`,
          expect.stringMatching(new RegExp(`^\\[INFO\\] Unit ${slug}: loop 1 done, \\$0\\.\\d\\d so far$`)),
          expect.stringMatching(new RegExp(`^\\[SUCCESS\\] Unit ${slug} merged into main \\((fast-forward|merge-commit)\\)$`)),
        ]);
      }
      expect(lines).toHaveLength(10);
      expect(run.stdout).toMatch(new RegExp(`^Parallel run ${runId} into main:\n(  add-(alpha|beta|gamma): merged \\((fast-forward|merge-commit)\\)\n){3}$`));
    },
    LONG,
  );
});
