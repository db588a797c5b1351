// Property of the parallel merge queue (lib/parallel/merge.ts), with real git: for random units
// (commits on their own files, a shared file that conflicts, their .ralph/ plan, uncommitted
// leftovers), random outcomes (done or halted) and random merge orders, with a conflict left for
// review or resolved on the unit's branch, every commit made on any unit branch is reachable
// afterwards from the run branch, a kept ralph/ branch, or a backup ref; and the run branch
// never holds a conflict marker. fast-check prints the seed of a failing case to replay it.

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeProcessRunner } from '../../lib/platform/process.js';
import { projectPaths } from '../../lib/state/paths.js';
import { defaultConfig } from '../../lib/config/schema.js';
import { landUnit, mergeRunBranchIntoUnit, prepareUnitBranch, removeMergedUnit, type LandResult } from '../../lib/parallel/merge.js';
import { openUnitWorktree } from '../../lib/parallel/worktrees.js';
import type { UnitRecord } from '../../lib/parallel/run-state.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';

interface UnitPlan {
  commits: Array<'own' | 'shared' | 'plan'>;
  leftover: boolean;
  outcome: 'done' | 'halted';
  /** On a conflict: the unit's branch takes the run branch in and resolves it, or it is left for review. */
  resolves: boolean;
}

const unitPlan: fc.Arbitrary<UnitPlan> = fc.record({
  commits: fc.array(fc.constantFrom('own' as const, 'shared' as const, 'plan' as const), { minLength: 1, maxLength: 3 }),
  leftover: fc.boolean(),
  outcome: fc.constantFrom('done' as const, 'done' as const, 'halted' as const),
  resolves: fc.boolean(),
});

const scenario = fc.array(unitPlan, { minLength: 2, maxLength: 3 }).chain((units) =>
  fc.tuple(
    fc.constant(units),
    fc.shuffledSubarray(
      units.map((_, i) => i),
      { minLength: units.length, maxLength: units.length },
    ),
  ),
);

async function checkScenario(units: UnitPlan[], order: number[]): Promise<void> {
  const project = tmpProject(
    ralphProjectTree({ 'shared.txt': 'base\n', '.ralph/fix_plan.md': `# Plan\n${units.map((_, i) => `- [ ] Item ${i}`).join('\n')}\n` }),
    { git: true },
  );
  const env = { ...process.env, ...GIT_TEST_ENV };
  const git = { runner: nodeProcessRunner, env };
  const sh = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
  try {
    const paths = projectPaths(project.dir, defaultConfig());
    const base = sh(project.dir, 'rev-parse', 'HEAD');
    const made: string[] = [];
    const records: UnitRecord[] = units.map((_, i) => ({
      slug: `item-${i}`,
      item: `Item ${i}`,
      lines: [`- [ ] Item ${i}`],
      after: [],
      branch: `ralph/prop/item-${i}`,
      worktree: `.ralph/worktrees/item-${i}`,
      state: 'running',
      loops: 0,
      cost_usd: 0,
      exit_code: null,
      exit_reason: '',
      conflict_passes: 0,
      merge_attempts: 1,
    }));
    for (const [i, plan] of units.entries()) {
      const unit = records[i]!;
      await openUnitWorktree(git, project.dir, unit, base);
      const dir = join(project.dir, unit.worktree);
      plan.commits.forEach((kind, n) => {
        const file = kind === 'own' ? `own-${i}.txt` : kind === 'shared' ? 'shared.txt' : '.ralph/fix_plan.md';
        writeFileSync(join(dir, file), `unit ${i} change ${n}\n`);
        sh(dir, 'add', '-A');
        sh(dir, 'commit', '-q', '-m', `unit ${i} commit ${n}`);
        made.push(sh(dir, 'rev-parse', 'HEAD'));
      });
      if (plan.leftover) writeFileSync(join(dir, `left-${i}.txt`), 'left\n');
    }
    for (const i of order) {
      const plan = units[i]!;
      const unit = records[i]!;
      if (plan.outcome === 'halted') continue;
      const dir = join(project.dir, unit.worktree);
      // The unit's branch made ready (its own turn), then the merge queue's turn.
      const land = async (): Promise<LandResult> => {
        const ready = await prepareUnitBranch(git, dir, unit, 'main');
        return ready.ok ? landUnit(git, paths, { runId: 'prop', runBranch: 'main' }, unit, () => undefined) : { kind: 'failed', message: ready.message };
      };
      let landed = await land();
      if (landed.kind === 'conflict' && plan.resolves) {
        unit.conflict_passes = 1;
        unit.merge_attempts = 2;
        const start = await mergeRunBranchIntoUnit(git, dir, 'main', 'take main in\n');
        if (start.kind === 'conflicted') {
          for (const file of start.files) writeFileSync(join(dir, file), `resolved by unit ${i}\n`);
        }
        landed = await land();
      }
      expect(landed.kind === 'failed' ? landed.message : '').toBe('');
      if (landed.kind === 'merged') expect(await removeMergedUnit(git, project.dir, unit)).toEqual({ ok: true });
    }
    // Every commit made on a unit branch is reachable from main, a kept ralph/ branch or a backup ref.
    const refs = sh(project.dir, 'for-each-ref', '--format=%(refname)').split('\n');
    const keepers = refs.filter((ref) => ref === 'refs/heads/main' || ref.startsWith('refs/heads/ralph/') || ref.startsWith('refs/ralph/backups/'));
    const reachable = new Set(sh(project.dir, 'rev-list', ...keepers).split('\n'));
    for (const commit of made) expect(reachable.has(commit), `commit ${commit} lost`).toBe(true);
    expect(readFileSync(project.path('shared.txt'), 'utf8')).not.toMatch(/^<<<<<<< /m);
    expect(sh(project.dir, 'status', '--porcelain', '--untracked-files=no')).toBe('');
  } finally {
    project.cleanup();
  }
}

describe('parallel merge queue (property)', () => {
  it('never loses a commit made on a unit branch, whatever the outcomes and merge order', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, ([units, order]) => checkScenario(units, order)),
      { numRuns: 4 },
    );
  }, 600_000);
});
