// `ralph-queue process --parallel N` / `ralph --process-queue --parallel N`: up to N ready queue
// items at a time through the engine of parallel loops (lib/parallel/unit-runner.ts), each in
// its own worktree on its own branch with its item's spec and one-task plan, sharing one account,
// merged back through the same merge queue as `ralph --parallel`. An item waits until every
// queued item it depends on has merged, and starts from the branch as it is then. The queue
// file follows each unit: processing while it runs, completed only once merged, failed (its
// branch and worktree kept, the reason saying where) when its loop stops or its merge needs
// review. Ctrl-C stops every agent and puts the running items back to pending; their worktrees
// stay, and the next `ralph-queue process --parallel N` takes them up again
// (.ralph/queue-parallel.json).

import { loadConfig } from '../config/load-config.js';
import { dependenciesSatisfied } from './queue-order.js';
import { markItem, resetInterrupted } from './queue-items.js';
import { EXIT } from '../errors.js';
import { preflightProject } from '../loop/run-project.js';
import { exitCodeForSignal } from '../loop/stop-signal.js';
import { recordGitBaseline } from '../platform/git-gateway.js';
import { AccountLedger } from '../parallel/account.js';
import { readGit, type GitContext } from '../parallel/git.js';
import { assignSlugs } from '../parallel/plan-units.js';
import { loadParallelRunFile, queueParallelStatePath, saveParallelRun, unitPlace, type ParallelRunState, type UnitRecord } from '../parallel/run-state.js';
import { UnitRunner } from '../parallel/unit-runner.js';
import { assertNoTrackedChanges, readRunBranch } from '../parallel/worktrees.js';
import { acquireProjectLock } from '../state/lock.js';
import { ledgerPath } from '../state/ledger.js';
import type { QueueItem } from './queue-file.js';
import type { StateReadOptions } from '../state/state-file.js';
import { itemTaskLines } from './item-workspace.js';
import { describeItem, prepareItemSpec, setStatus, type ProcessQueueOptions } from './queue-run.js';
import type { QueueStore } from './queue-store.js';

export async function processQueueParallel(options: ProcessQueueOptions, store: QueueStore, parallel: number): Promise<number> {
  const { deps } = options;
  const projectDir = options.paths.projectDir;
  const git: GitContext = { runner: deps.processRunner, env: deps.env };
  const state: StateReadOptions = { logger: deps.logger, clock: deps.clock };
  const statePath = queueParallelStatePath(options.paths);
  const waiting = () => store.read().queue.filter((item) => item.status === 'pending' || item.status === 'processing');
  if (!waiting().some((item) => dependenciesSatisfied(item, store.read().queue))) {
    deps.logger.info('No ready item in the queue: nothing to run');
    return EXIT.ok;
  }
  // Before any change: a loop that cannot start (no agent CLI, a bad .ralphrc, no PROMPT.md), a
  // detached HEAD or uncommitted tracked files fail here with the project as it was.
  await preflightProject({ projectDir, flags: { ...options.flags, EXIT_CODES: 'ralph' }, deps });
  // The repository as the run starts (for ralph as root, this folder trusted whoever owns it).
  await recordGitBaseline(projectDir, deps.env);
  const runBranch = await readRunBranch(git, projectDir);
  await assertNoTrackedChanges(git, projectDir);
  const { config } = loadConfig({ projectDir, homeDir: deps.homeDir, env: deps.env, flags: options.flags });
  if (config.PARALLEL_LAND === 'pr')
    deps.logger.warn(`PARALLEL_LAND=pr is for ralph --parallel: ralph-queue process --parallel merges each item into ${runBranch} here, as it always does`);
  const paths = { ...options.paths, ledger: ledgerPath(projectDir, deps.env, deps.homeDir) };
  // No ralph loop in the main worktree while units merge into it.
  const lock = acquireProjectLock(paths, { pid: process.pid, logger: deps.logger });
  try {
    store.update((queue) => {
      const { items, reset } = resetInterrupted(queue.queue);
      if (reset > 0) deps.logger.info(`Resetting ${reset} interrupted (processing) item(s) back to pending`);
      return { ...queue, queue: items };
    });
    const run = await openQueueRun(store, loadParallelRunFile(statePath, state), { git, projectDir, runBranch, now: deps.clock.now() }, options);
    saveParallelRun(statePath, run);
    const ledger = new AccountLedger(paths, config, state);
    const runner = new UnitRunner({ ...options, projectDir, parallel }, paths, git, run, ledger, {
      statePath,
      resumeCommand: `ralph-queue process --parallel ${parallel}`,
      // The project's plan is not the queue's: nothing to tick.
      afterMerge: async () => ({ ok: true }),
      onStateChange: (unit) => recordUnitState(store, unit),
      // The loop of a unit closes no issue and opens no pull request: the merge queue lands its work.
      unitFlags: { GITHUB_ISSUE: '', CB_AUTO_RESET: true },
      startFromRunBranch: true,
    });
    const signal = await runner.start();
    // What did not end (interrupted, or never started) is pending again.
    for (const unit of run.units) {
      if (!['merged', 'failed', 'needs-review'].includes(unit.state))
        setStatus(store, unit.queue_item ?? '', (it) => (it.status === 'processing' ? resetInterrupted([it]).items[0]! : it));
    }
    if (signal) {
      deps.logger.warn(`Queue run interrupted; the running items are pending again (ralph-queue process --parallel ${parallel} continues in their worktrees)`);
      return exitCodeForSignal(signal);
    }
    run.finished = run.units.every((u) => u.state !== 'running' && u.state !== 'merging' && u.state !== 'conflict');
    await runner.close();
    const failed = run.units.filter((u) => u.state === 'failed' || u.state === 'needs-review').length;
    const merged = run.units.filter((u) => u.state === 'merged').length;
    const pending = run.units.length - failed - merged;
    deps.logger.info(
      `Queue run finished: ${merged} completed (merged into ${runBranch}), ${failed} failed, ${pending} pending (unmet dependencies or not reached)`,
    );
    return failed > 0 ? EXIT.couldNotRun : EXIT.ok;
  } finally {
    lock.release();
  }
}

interface RunPlace {
  git: GitContext;
  projectDir: string;
  runBranch: string;
  now: number;
}

/**
 * The run's units: one for each pending item. An item a stopped run was working on keeps its
 * unit (branch, worktree, loops) when that run merges into the same branch; the others get new
 * ones. An item whose spec cannot be prepared is failed here and gets none.
 */
async function openQueueRun(
  store: QueueStore,
  previous: ParallelRunState | undefined,
  place: RunPlace,
  options: ProcessQueueOptions,
): Promise<ParallelRunState> {
  const { deps, paths } = options;
  const resumed = previous && !previous.finished && previous.run_branch === place.runBranch ? previous : undefined;
  const runId = resumed?.run_id ?? `q${new Date(place.now).toISOString().replace(/[-:]/g, '').slice(0, 15)}`;
  const queue = store.read();
  const items: Array<{ item: QueueItem; lines: string[] }> = [];
  for (const item of queue.queue.filter((it) => it.status === 'pending')) {
    const spec = await prepareItemSpec(item, queue.repository, paths, deps);
    if (!spec.ok) {
      setStatus(store, item.id, (it, now) => markItem(it, 'failed', now, spec.reason));
      deps.logger.error(`Failed ${describeItem(item)}: ${spec.reason}`);
      continue;
    }
    items.push({ item, lines: itemTaskLines(item, spec.path) });
  }
  const kept = new Map((resumed?.units ?? []).filter((u) => u.state !== 'merged').map((u) => [u.queue_item, u]));
  const taken = new Set([...kept.values()].map((u) => u.slug));
  const fresh = assignSlugs(items.map(({ item }) => (item.issue_number === null ? item.title : `issue ${item.issue_number} ${item.title}`)));
  const units: UnitRecord[] = items.map(({ item, lines }, index) => {
    const old = kept.get(item.id);
    if (old) return { ...old, lines };
    let slug = fresh[index]!;
    for (let n = 2; taken.has(slug); n++) slug = `${fresh[index]!}-${n}`;
    taken.add(slug);
    return {
      slug,
      item: describeItem(item),
      lines,
      after: [],
      ...unitPlace(runId, slug),
      state: 'pending',
      loops: 0,
      cost_usd: 0,
      exit_code: null,
      exit_reason: '',
      conflict_passes: 0,
      merge_attempts: 0,
      queue_item: item.id,
    };
  });
  // A dependency on a queued item that is not pending (failed, skipped) is never met in this
  // run: it is named by its issue, which no unit carries, so the item waits.
  for (const unit of units) {
    const item = items.find(({ item: it }) => it.id === unit.queue_item)!.item;
    unit.after = item.dependencies.flatMap((dep) => {
      const other = queue.queue.find((it) => it.issue_number === dep);
      if (!other || other.status === 'completed') return [];
      const otherUnit = units.find((u) => u.queue_item === other.id);
      return [otherUnit ? otherUnit.slug : `#${dep}`];
    });
  }
  const base = resumed?.base_commit ?? (await readGit(place.git, place.projectDir, ['rev-parse', 'HEAD']));
  if (resumed) deps.logger.info(`Resuming queue run ${runId}: ${kept.size} item(s) take up their worktrees again`);
  deps.logger.info(`Queue run ${runId}: ${units.length} pending item(s), up to ${options.parallel} at a time, merged into ${place.runBranch}`);
  return { run_id: runId, base_commit: base, run_branch: place.runBranch, started_at: new Date(place.now).toISOString(), finished: false, units };
}

/** The queue file as the unit's state says: processing while it runs, completed once merged, failed otherwise. */
function recordUnitState(store: QueueStore, unit: UnitRecord): void {
  const itemId = unit.queue_item ?? '';
  const where = `its work stays on branch ${unit.branch} (worktree ${unit.worktree})`;
  switch (unit.state) {
    case 'running':
      setStatus(store, itemId, (it, now) => markItem(it, 'processing', now));
      return;
    case 'merged':
      setStatus(store, itemId, (it, now) => markItem(it, 'completed', now));
      return;
    case 'failed':
      setStatus(store, itemId, (it, now) => markItem(it, 'failed', now, `${unit.exit_reason || 'the loop stopped'}; ${where}`));
      return;
    case 'needs-review':
      setStatus(store, itemId, (it, now) => markItem(it, 'failed', now, `needs review: ${unit.exit_reason}; ${where}`));
      return;
    default:
  }
}
