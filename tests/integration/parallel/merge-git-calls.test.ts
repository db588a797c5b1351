// The git processes the merge queue's steps start (lib/parallel/merge.ts), counted through
// GIT_TRACE (git writes a line per process it starts), with real git: a merge asks what it must
// know first side by side; a unit whose branch cannot fast-forward is merged without a
// fast-forward tried first; a step that reads no file of a
// worktree (the unit's changes to ralph's files, looked up between two commits; a merged unit's
// worktree and branch removed) starts no `git config --list` for drivers beside it.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../lib/config/schema.js';
import { keepOwnFilesOut, landUnit, prepareUnitBranch, removeMergedUnit } from '../../../lib/parallel/merge.js';
import type { UnitRecord } from '../../../lib/parallel/run-state.js';
import { openUnitWorktree } from '../../../lib/parallel/worktrees.js';
import { resetGitBaselines } from '../../../lib/platform/git-gateway.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { projectPaths } from '../../../lib/state/paths.js';
import { callsNaming, recordCallsInFlight } from '../../helpers/calls-in-flight.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { mergingUnit } from '../../helpers/unit-record.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';

const cleanups = useCleanups();
afterEach(() => resetGitBaselines());

/** A project with two units, each with a commit of its own file on its branch; `traced` gives the git calls of one step. */
async function twoUnits() {
  const project = tmpProject(ralphProjectTree({ '.ralph/fix_plan.md': '# Plan\n- [ ] Add alpha\n- [ ] Add beta\n' }), { git: true });
  cleanups.push(() => project.cleanup());
  const traceDir = mkdtempSync(join(tmpdir(), 'ralph-git-trace-'));
  cleanups.push(() => rmSync(traceDir, { recursive: true, force: true }));
  const trace = join(traceDir, 'git-trace.log');
  const env = { ...process.env, ...GIT_TEST_ENV, GIT_TRACE: trace };
  const git = { runner: nodeProcessRunner, env };
  const base = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: project.dir, encoding: 'utf8' }).trim();
  const units = [mergingUnit('alpha', 'count'), mergingUnit('beta', 'count')];
  for (const unit of units) {
    await openUnitWorktree(git, project.dir, unit, base);
    const dir = join(project.dir, unit.worktree);
    writeFileSync(join(dir, `${unit.slug}.txt`), `${unit.slug}\n`);
    execFileSync('git', ['add', '-A', '--', `${unit.slug}.txt`], { cwd: dir, env });
    execFileSync('git', ['commit', '-q', '-m', `${unit.slug}`], { cwd: dir, env });
  }
  const traced = async <T>(step: () => Promise<T>): Promise<{ result: T; calls: string[] }> => {
    writeFileSync(trace, '');
    const result = await step();
    const calls = readFileSync(trace, 'utf8')
      .split('\n')
      .flatMap((line) => (/built-in: git /.test(line) ? [line.replace(/.*built-in: /, '')] : []));
    return { result, calls };
  };
  const land = (unit: UnitRecord) => landUnit(git, projectPaths(project.dir, defaultConfig()), { runId: 'count', runBranch: 'main' }, unit, () => undefined);
  return { project, git, units, traced, land };
}

const configListings = (calls: string[]) => calls.filter((call) => call === 'git config -z --list');

describe('the merge queue: git processes per step', () => {
  it('merges a unit whose branch cannot fast-forward without trying a fast-forward first', async () => {
    const { units, traced, land } = await twoUnits();
    const first = await traced(() => land(units[0]!));
    expect(first.result).toMatchObject({ kind: 'merged', how: 'fast-forward' });
    expect(first.calls.filter((call) => call.includes('merge --ff-only'))).toHaveLength(1);
    const second = await traced(() => land(units[1]!));
    expect(second.result).toMatchObject({ kind: 'merged', how: 'merge-commit' });
    expect(second.calls.filter((call) => call.includes('merge --ff-only'))).toEqual([]);
    expect(second.calls.filter((call) => call.includes('merge --no-ff'))).toHaveLength(1);
  });

  it('asks for the branch checked out, both tips and where they parted side by side', async () => {
    const { project, git, units } = await twoUnits();
    const { runner, calls } = recordCallsInFlight(git.runner);
    const landed = await landUnit(
      { ...git, runner },
      projectPaths(project.dir, defaultConfig()),
      { runId: 'count', runBranch: 'main' },
      units[0]!,
      () => undefined,
    );
    expect(landed).toMatchObject({ kind: 'merged', how: 'fast-forward' });
    const [mergeBase] = callsNaming(calls, 'merge-base');
    expect(callsNaming(calls, 'symbolic-ref')).toHaveLength(1);
    expect(callsNaming(calls, 'rev-parse')).toHaveLength(1);
    expect(mergeBase?.running).toBe(3);
  });

  it("finds a unit's branch merged already and merges nothing", async () => {
    const { units, traced, land } = await twoUnits();
    await land(units[0]!);
    const again = await traced(() => land(units[0]!));
    expect(again.result).toMatchObject({ kind: 'merged', how: 'already-merged' });
    expect(again.calls.filter((call) => call.includes(' merge ') || call.includes('update-ref'))).toEqual([]);
  });

  it("looks for the unit's changes to ralph's files between two commits without listing the configuration", async () => {
    const { project, git, units, traced } = await twoUnits();
    const dir = join(project.dir, units[0]!.worktree);
    const kept = await traced(() => keepOwnFilesOut(git, dir, 'main'));
    expect(kept.result).toEqual({ ok: true });
    expect(kept.calls.filter((call) => / diff .*--name-only/.test(call))).toHaveLength(1);
    expect(configListings(kept.calls)).toEqual([]);
  });

  it("removes a merged unit's worktree and branch with one configuration listing, for the status of its worktree", async () => {
    const { project, git, units, traced, land } = await twoUnits();
    const unit = units[0]!;
    expect(await prepareUnitBranch(git, join(project.dir, unit.worktree), unit, 'main')).toEqual({ ok: true });
    await land(unit);
    const removed = await traced(() => removeMergedUnit(git, project.dir, unit));
    expect(removed.result).toEqual({ ok: true });
    expect(removed.calls.filter((call) => /\b(status|worktree remove|branch -d)\b/.test(call))).toHaveLength(3);
    expect(configListings(removed.calls)).toHaveLength(1);
    expect(execFileSync('git', ['branch', '--list', unit.branch], { cwd: project.dir, encoding: 'utf8' })).toBe('');
  });
});
