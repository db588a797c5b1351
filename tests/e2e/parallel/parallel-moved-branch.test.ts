// A unit whose merge still conflicts after its agent's conflict pass because the run branch
// moved on during that pass (another unit merged): the reason says the run branch moved, names
// the commits it moved between, and the summary says how to go on, instead of blaming the pass.
// The agents wait on each other through the files the run writes (no clock): gamma finishes
// only once beta's conflict pass has started, and that pass ends only once gamma has merged.

import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

let p: ParallelProject | undefined;
afterEach(() => p?.cleanup());

// The unit's worktree is .ralph/worktrees/<run>-<unit> of the project.
const MAIN_PLAN = '../../../.ralph/fix_plan.md';
const PASS_STARTED = '../../../.ralph/beta-pass-started';
const waitUntil = (condition: string) => ({ tool: 'Bash', input: { command: `until ${condition}; do sleep 0.1; done` }, exec: true });

describe('ralph --parallel when the run branch moves during a conflict pass', () => {
  it(
    'says the run branch moved, from which commit to which, and what to do',
    async () => {
      p = parallelProject(
        ['Edit top', 'Edit both', 'Edit middle'],
        {
          calls: [
            {
              match: { promptRegex: 'Resolve the merge conflicts in: shared\\.txt' },
              steps: [waitUntil(`touch ${PASS_STARTED}`), waitUntil(`grep -q '\\[x\\] Edit middle' ${MAIN_PLAN}`)],
              writeFiles: { 'shared.txt': 'top A and B\ntwo\nmiddle B\nfour\nfive\n' },
              tickFixPlan: 'all',
              resultText: 'Resolved.',
            },
            {
              match: { promptRegex: 'one item of the plan: Edit top' },
              writeFiles: { 'shared.txt': 'top A\ntwo\nthree\nfour\nfive\n' },
              tickFixPlan: 'all',
              resultText: 'Did top.',
            },
            {
              match: { promptRegex: 'one item of the plan: Edit both' },
              steps: [waitUntil(`grep -q '\\[x\\] Edit top' ${MAIN_PLAN}`)],
              writeFiles: { 'shared.txt': 'top B\ntwo\nmiddle B\nfour\nfive\n' },
              tickFixPlan: 'all',
              resultText: 'Did both.',
            },
            {
              match: { promptRegex: 'one item of the plan: Edit middle' },
              steps: [waitUntil(`test -e ${PASS_STARTED}`)],
              writeFiles: { 'shared.txt': 'top\ntwo\nmiddle G\nfour\nfive\n' },
              tickFixPlan: 'all',
              resultText: 'Did middle.',
            },
          ],
        },
        { files: { 'shared.txt': 'top\ntwo\nthree\nfour\nfive\n' }, rc: 'ALLOWED_TOOLS="Bash"\n' },
      );
      const run = await runCli('ralph', ['--parallel', '3'], { cwd: p.project.dir, env: p.env });
      expect(run.code, run.stdout + run.stderr).toBe(2);
      const units = p.state().units;
      expect(units.map((u) => [u.slug, u.state])).toEqual([
        ['edit-top', 'merged'],
        ['edit-both', 'needs-review'],
        ['edit-middle', 'merged'],
      ]);
      const both = units[1]!;
      // The run branch at the start of beta's pass (after edit-top merged), and now (edit-middle's merge).
      const [now, , before] = p.project.git('log', '--format=%h', '-n', '3', '--first-parent', 'main').trim().split('\n');
      const reason = `merge conflict in shared.txt: main moved from ${before} to ${now} while its agent resolved the earlier conflict`;
      expect(both.exit_reason).toBe(reason);
      expect(run.stdout).toContain(`  edit-both: needs review (${reason})`);
      expect(run.stdout).toContain(
        `    finish it: ralph --parallel 3 gives its agent a pass at the new conflict (git log ${before}..${now} shows what came in); or by hand: cd ${both.worktree as string}, git merge main, resolve, git commit; then ralph --parallel 3 merges it`,
      );
      expect(run.stderr).toContain(`Unit edit-both needs review: main moved from ${before} to ${now} during its agent's conflict pass`);
      expect(run.stdout + run.stderr).not.toContain("after the agent's pass");
    },
    LONG,
  );
});
