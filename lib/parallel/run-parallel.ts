// `ralph --parallel N`: the plan's units run side by side through the engine of parallel loops
// (unit-runner.ts): each the ordinary loop in its own worktree, one shared account, one merge
// queue. The run's state is written on every change (.ralph/parallel.json) so Ctrl-C, SIGTERM
// or `kill -9` leave a run that `ralph --parallel N` resumes.

import { readFileSync } from 'node:fs';
import { loadConfig } from '../config/load-config.js';
import { isPlanComplete, parseFixPlan } from '../plan/fix-plan.js';
import { EXIT, RalphError } from '../errors.js';
import { integrityError, missingRequiredPaths } from '../loop/startup.js';
import { exitCodeForSignal } from '../loop/stop-signal.js';
import type { Deps } from '../platform/deps.js';
import { recordGitBaseline } from '../platform/git-gateway.js';
import { acquireProjectLock } from '../state/lock.js';
import { projectPaths, type RalphPaths } from '../state/paths.js';
import { ledgerPath } from '../state/ledger.js';
import type { StateReadOptions } from '../state/state-file.js';
import { AccountLedger } from './account.js';
import { readGit, runGit, type GitContext } from './git.js';
import { BACKUP_REF_ROOT } from './merge.js';
import { findPlanUnits, type PlanUnit } from './plan-units.js';
import { hasLanded, loadParallelRun, parallelStatePath, saveParallelRun, type ParallelRunState, type UnitRecord } from './run-state.js';
import { assertCanOpenPullRequests } from './pull-request.js';
import { joinNewPlanUnits, newUnitRecord, retryUnit } from './resume-run.js';
import { readParallelLedger, saveParallelLedger } from './run-ledger.js';
import { describeAbandonedRun, describeDryRunUnits } from './summary.js';
import { askAgentVersionEarly, shareVersionQuestions } from './shared-probes.js';
import { UnitRunner, type UnitRunnerOptions } from './unit-runner.js';
import { resumableRun } from './upcoming-units.js';
import { assertNoTrackedChanges, readRunBranch, type RunStartLook } from './worktrees.js';

export type RunParallelOptions = UnitRunnerOptions;

export async function runParallel(options: RunParallelOptions): Promise<number> {
  const { projectDir, deps } = options;
  const loaded = loadConfig({ projectDir, homeDir: deps.homeDir, env: deps.env, flags: options.flags });
  const { config } = loaded;
  // The account's hourly window is kept in the project's ledger, outside the project.
  const paths = { ...projectPaths(projectDir, config), ledger: ledgerPath(projectDir, deps.env, deps.homeDir) };
  const missing = missingRequiredPaths(paths);
  if (missing.length > 0) throw integrityError(missing, EXIT.couldNotRun);
  const found = findPlanUnits(readFileSync(paths.fixPlan, 'utf8'), config.OPTIONAL_SECTIONS);
  if (!found.ok) throw new RalphError('parallel_plan', found.problem, { hint: 'fix the (after: …) clause in fix_plan.md, then run ralph --parallel again' });
  const state: StateReadOptions = { logger: deps.logger, clock: deps.clock };
  if (config.DRY_RUN) {
    const resumed = resumableRun(paths, state);
    deps.stdout.write(describeDryRunUnits(resumed ? resumed.units : found.units, options.parallel));
    return EXIT.ok;
  }
  const git: GitContext = { runner: deps.processRunner, env: deps.env };
  // The lock first: with another ralph at work here, that is what to say, not the state of the
  // tree it is changing.
  const lock = acquireProjectLock(paths, { pid: process.pid, logger: deps.logger });
  try {
    // The repository as the run starts: where git looks, its settings and remotes (a push goes
    // to origin's URL as it is now), and, for ralph as root, this folder trusted whoever owns it.
    // That look also says whether the project is in a work tree and which commit HEAD names.
    const seen: { head?: string | null } = {};
    const anchor = await recordGitBaseline(projectDir, deps.env, (head) => (seen.head = head));
    const look: RunStartLook = { inWorkTree: anchor?.workTree !== undefined, head: seen.head };
    const runBranch = await checkedOutCleanBranch(git, projectDir, look);
    const pullRequests = config.PARALLEL_LAND === 'pr';
    if (pullRequests) await assertCanOpenPullRequests(git, projectDir, deps);
    const run = await openParallelRun(paths, state, { git, runBranch, head: look.head ?? undefined }, found.units, deps, pullRequests ? 'landed' : 'merged');
    if (!run) {
      deps.logger.success('fix_plan.md has no open item: nothing to run');
      return EXIT.ok;
    }
    run.land = pullRequests ? 'pr' : 'merge';
    // Units will run: their agent's CLI is asked its version now, once for all of them, while
    // the worktrees are made.
    const unitDeps = { ...deps, processRunner: shareVersionQuestions(deps.processRunner) };
    askAgentVersionEarly(loaded, projectDir, unitDeps, unitDeps.processRunner);
    const previous = readParallelLedger(paths.ledger, run.run_id, (message) => deps.logger.warn(message));
    // Each unit's cost comes from the ledger, never from parallel.json (the agent can write it).
    for (const unit of run.units) unit.cost_usd = previous?.units[unit.slug] ?? 0;
    const ledger = new AccountLedger(paths, config, state, {
      runId: run.run_id,
      previous,
      save: (record) => saveParallelLedger(paths.ledger, projectDir, record),
    });
    const runner = new UnitRunner({ ...options, deps: unitDeps }, paths, git, run, ledger, {
      statePath: parallelStatePath(paths),
      resumeCommand: `ralph --parallel ${options.parallel}`,
      abandonCommand: 'ralph --parallel-abandon',
      ...(pullRequests ? { pullRequests: { draft: config.DRAFT_PR } } : {}),
    });
    const signal = await runner.start();
    if (signal) return exitCodeForSignal(signal);
    const code = decideExitCode(run.units, () => isPlanComplete(parseFixPlan(readFileSync(paths.fixPlan, 'utf8'), config.OPTIONAL_SECTIONS)));
    if (run.units.every(hasLanded)) run.finished = true;
    await runner.close();
    return code;
  } finally {
    lock.release();
  }
}

/**
 * The branch checked out (readRunBranch), once git said no tracked file changed: both asked side
 * by side; when both refuse, the branch's refusal is the one given.
 */
async function checkedOutCleanBranch(git: GitContext, projectDir: string, look: RunStartLook): Promise<string> {
  const [branch, clean] = await Promise.allSettled([readRunBranch(git, projectDir, look), assertNoTrackedChanges(git, projectDir)]);
  if (branch.status === 'rejected') throw branch.reason;
  if (clean.status === 'rejected') throw clean.reason;
  return branch.value;
}

/**
 * The unfinished run to resume — its needs-review units tried again, the plan's new items
 * joined — or a new one for the plan's open units (undefined: none).
 */
async function openParallelRun(
  paths: RalphPaths,
  state: StateReadOptions,
  { git, runBranch, head }: { git: GitContext; runBranch: string; head: string | undefined },
  units: PlanUnit[],
  deps: Deps,
  landed: 'merged' | 'landed',
): Promise<ParallelRunState | undefined> {
  const previous = loadParallelRun(paths, state);
  if (previous && !previous.finished) {
    if (previous.run_branch !== runBranch) {
      throw new RalphError(
        'parallel_branch',
        `The unfinished parallel run ${previous.run_id} merges into ${previous.run_branch}, and ${runBranch} is checked out`,
        {
          hint: `git switch ${previous.run_branch} and run ralph --parallel again, or abandon that run (ralph --parallel-abandon)`,
        },
      );
    }
    const open = previous.units.filter((u) => !hasLanded(u)).length;
    deps.logger.info(`Resuming parallel run ${previous.run_id} on ${runBranch}: ${open} of ${previous.units.length} unit(s) not ${landed} yet`);
    // Recorded landed while its item is still open in the plan: a run from before the landing
    // and its tick were one turn. The turn is taken up again: the merge is a no-op (a pull
    // request is found, not opened again), the tick is done.
    const openItems = new Set(units.map((u) => u.item));
    for (const unit of previous.units.filter((u) => hasLanded(u) && openItems.has(u.item))) {
      const how = unit.state;
      if (!(await runGit(git, paths.projectDir, ['rev-parse', '-q', '--verify', `refs/heads/${unit.branch}`])).ok) continue;
      unit.state = 'merging';
      deps.logger.info(`Unit ${unit.slug}: ${how === 'merged' ? 'merged' : 'its pull request opened'}, its item not ticked yet: ticking it`);
    }
    for (const unit of previous.units.filter((u) => u.state === 'needs-review')) {
      const why = unit.exit_reason;
      Object.assign(unit, await retryUnit(git, paths.projectDir, unit));
      deps.logger.info(`Unit ${unit.slug}: tried again from ${unit.branch} (it needed review: ${why})`);
    }
    const joined = joinNewPlanUnits(previous, units);
    if (joined.length > 0) {
      previous.units.push(...joined);
      deps.logger.info(`Parallel run ${previous.run_id}: ${joined.length} new plan item(s) join it: ${joined.map((u) => u.slug).join(', ')}`);
    }
    saveParallelRun(parallelStatePath(paths), previous);
    return previous;
  }
  if (units.length === 0) return undefined;
  const now = deps.clock.now();
  const runId = newParallelRunId(now, previous?.run_id);
  const run: ParallelRunState = {
    run_id: runId,
    base_commit: head ?? (await readGit(git, paths.projectDir, ['rev-parse', 'HEAD'])),
    run_branch: runBranch,
    started_at: new Date(now).toISOString(),
    finished: false,
    units: units.map((u) => newUnitRecord(runId, u.slug, u, u.after)),
  };
  saveParallelRun(parallelStatePath(paths), run);
  deps.logger.info(`Parallel run ${runId}: ${run.units.length} unit(s) from fix_plan.md, merged into ${runBranch}`);
  return run;
}

/**
 * A new run's id: the second it starts, and a counter when the last run (finished or abandoned)
 * started in the same second. Its branches and worktrees keep that id, so an id used again would
 * put the new run's units on the old run's branches, with the old units' state.
 */
export function newParallelRunId(now: number, previousId: string | undefined): string {
  const base = `p${new Date(now).toISOString().replace(/[-:]/g, '').slice(0, 15)}`;
  if (previousId === base) return `${base}-2`;
  if (!previousId?.startsWith(`${base}-`)) return base;
  return `${base}-${(Number(previousId.slice(base.length + 1)) || 1) + 1}`;
}

/** 0 when every unit landed (merged, or in review) and `complete()`; 2 halted or needs review; 3 stopped at a limit. */
export function decideExitCode(units: UnitRecord[], complete: () => boolean): number {
  if (units.every(hasLanded)) return complete() ? EXIT.ok : EXIT.halted;
  const stopped = units.filter((u) => u.state === 'failed');
  if (units.some((u) => u.state === 'needs-review') || stopped.some((u) => u.exit_code === EXIT.halted)) return EXIT.halted;
  if (stopped.some((u) => u.exit_code === EXIT.limit)) return EXIT.limit;
  if (stopped.some((u) => u.exit_code === EXIT.couldNotRun)) return EXIT.couldNotRun;
  return EXIT.halted;
}

/**
 * `ralph --parallel-abandon`: the unfinished run is closed, so the next `ralph --parallel`
 * starts a new one from the plan. Nothing is deleted: each unit not merged keeps its branch
 * and worktree, the run keeps its backup refs, and all of them are printed.
 */
export async function abandonParallelRun(options: { projectDir: string; deps: Deps }): Promise<number> {
  const { projectDir, deps } = options;
  const { config } = loadConfig({ projectDir, homeDir: deps.homeDir, env: deps.env, flags: {} });
  const paths = projectPaths(projectDir, config);
  const state: StateReadOptions = { logger: deps.logger, clock: deps.clock };
  const lock = acquireProjectLock(paths, { pid: process.pid, logger: deps.logger });
  try {
    const run = loadParallelRun(paths, state);
    if (!run || run.finished) {
      deps.stdout.write('No unfinished parallel run to abandon\n');
      return EXIT.ok;
    }
    run.finished = true;
    run.abandoned_at = new Date(deps.clock.now()).toISOString();
    saveParallelRun(parallelStatePath(paths), run);
    await recordGitBaseline(projectDir, deps.env);
    const git: GitContext = { runner: deps.processRunner, env: deps.env };
    const refs = await runGit(git, projectDir, ['for-each-ref', '--format=%(refname)', `${BACKUP_REF_ROOT}/${run.run_id}/`]);
    deps.stdout.write(describeAbandonedRun(run, refs.ok ? refs.stdout.split('\n').filter(Boolean) : []));
    return EXIT.ok;
  } finally {
    lock.release();
  }
}
