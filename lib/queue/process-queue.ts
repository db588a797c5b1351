// `ralph-queue process` / `ralph --process-queue`: the queue's ready items one after another,
// each as one in-process ralph run on its own spec and single-task plan. The run's exit code
// decides the item: 0 completed, anything else failed with the reason (halts and limits
// included); Ctrl-C puts the item back to pending and ends the queue run. One queue run per
// project (.ralph/.queue.lock), and none while a ralph loop holds the project: a second one
// would reset the running item and rewrite the plan its agent works through.

import { findDependencyCycle, formatCycle, nextReadyItem } from './queue-order.js';
import { countByStatus, decideItemOutcome, markItem, resetInterrupted, type ItemOutcome } from './queue-items.js';
import { EXIT, RalphError } from '../errors.js';
import { LoopEvents } from '../loop/events.js';
import { preflightProject, runProject } from '../loop/run-project.js';
import { acquireProjectLock, assertLockFree } from '../state/lock.js';
import { ledgerPath } from '../state/ledger-path.js';
import type { QueueItem } from './queue-file.js';
import { commitLeftovers, leftoverCommitMessage, readHead, type GitOptions, type LeftoverCommitResult } from './leftover-commit.js';
import { keepPreviousPlan, readUserPlan, restoreUserPlan, writeItemPlan } from './item-workspace.js';
import { describeItem, prepareItemSpec, setStatus, type ProcessQueueOptions } from './queue-run.js';
import { holdStatuses, openQueueStore, type QueueStore } from './queue-store.js';

export async function processQueue(options: ProcessQueueOptions): Promise<number> {
  const { paths, deps } = options;
  const lock = acquireProjectLock({ lock: paths.queueLock }, { pid: process.pid, logger: deps.logger, heldError: queueRunHeld });
  try {
    return await processLocked(options);
  } finally {
    lock.release();
  }
}

async function processLocked(options: ProcessQueueOptions): Promise<number> {
  const { paths, deps } = options;
  const store = holdStatuses(openQueueStore(paths.queue, deps));
  const cycle = findDependencyCycle(store.read().queue);
  if (cycle) {
    throw new RalphError('queue_cycle', `Refusing to process a queue with circular dependencies: ${formatCycle(cycle)}`, {
      hint: 'remove one of those issues (ralph-queue remove N), then run ralph-queue validate',
    });
  }
  if ((options.parallel ?? 1) > 1) {
    const { processQueueParallel } = await import('./process-queue-parallel.js');
    return processQueueParallel(options, store, options.parallel!);
  }
  // Before any plan is moved aside: a queue run that cannot start a loop (no agent CLI, a bad
  // .ralphrc, no PROMPT.md) fails here with the user's files as they were.
  if (nextReadyItem(store.read().queue)) await preflightProject({ projectDir: paths.projectDir, flags: { ...options.flags, EXIT_CODES: 'ralph' }, deps });
  store.update((queue) => {
    const { items, reset } = resetInterrupted(queue.queue);
    if (reset > 0) deps.logger.info(`Resetting ${reset} interrupted (processing) item(s) back to pending`);
    return { ...queue, queue: items };
  });

  // Each item's run works through a one-task plan in place of the project's own, which is put
  // back when the queue run ends, however it ends.
  const userPlan = readUserPlan(paths);
  try {
    return await processItems(options, store);
  } finally {
    if (restoreUserPlan(paths, userPlan)) deps.logger.info("Restored the project's own fix_plan.md (the queue's one-task plans were for its items' runs)");
  }
}

async function processItems(options: ProcessQueueOptions, store: QueueStore): Promise<number> {
  const { deps } = options;
  let failed = 0;
  let completed = 0;
  // Each pass ends one item (completed or failed), so the queue's length bounds the passes.
  for (let pass = store.read().queue.length; pass > 0; pass--) {
    const queue = store.read();
    const item = nextReadyItem(queue.queue);
    if (!item) break;
    deps.logger.info(`Processing ${describeItem(item)}`);
    setStatus(store, item.id, (it, now) => markItem(it, 'processing', now));
    let outcome: ItemOutcome;
    try {
      outcome = await processItem(item, queue.repository, options);
    } catch (error) {
      // The loop could not even start (no PROMPT.md, bad .ralphrc, no claude): the project's
      // problem, not this item's, so the item stays pending and the queue run ends here.
      setStatus(store, item.id, (it) => resetInterrupted([it]).items[0]!);
      throw error;
    }
    if (outcome.kind === 'interrupted') {
      setStatus(store, item.id, (it) => resetInterrupted([it]).items[0]!);
      deps.logger.warn(`Queue run interrupted during ${describeItem(item)}; it is pending again (ralph-queue resume continues)`);
      return outcome.exitCode;
    }
    if (outcome.kind === 'completed') {
      completed++;
      setStatus(store, item.id, (it, now) => markItem(it, 'completed', now));
      deps.logger.success(`Completed ${describeItem(item)}`);
      continue;
    }
    failed++;
    setStatus(store, item.id, (it, now) => markItem(it, 'failed', now, outcome.reason));
    deps.logger.error(`Failed ${describeItem(item)}: ${outcome.reason}`);
    if (options.haltOnFailure) {
      deps.logger.error('Halting the queue (--halt-on-failure)');
      break;
    }
  }
  const counts = countByStatus(store.read().queue);
  deps.logger.info(`Queue run finished: ${completed} completed, ${failed} failed, ${counts.pending} pending (unmet dependencies or not reached)`);
  return failed > 0 ? EXIT.couldNotRun : EXIT.ok;
}

async function processItem(item: QueueItem, repository: string, options: ProcessQueueOptions): Promise<ItemOutcome> {
  const { paths, deps } = options;
  const git: GitOptions = { runner: deps.processRunner, cwd: paths.projectDir, env: deps.env };
  // Before anything is written: a ralph loop that holds the project works on this plan.
  assertLockFree(paths);
  const spec = await prepareItemSpec(item, repository, paths, deps);
  if (!spec.ok) return { kind: 'failed', reason: spec.reason };
  try {
    const kept = keepPreviousPlan(paths, deps.clock.now());
    if (kept) deps.logger.info(`Kept the previous plan as ${kept}`);
    writeItemPlan({ ...paths, ledger: ledgerPath(paths.projectDir, deps.env, deps.homeDir) }, item, spec.path);
  } catch (error) {
    return { kind: 'failed', reason: `preparation failed: ${(error as Error).message}` };
  }

  const before = await readHead(git);
  const events = new LoopEvents();
  let exitReason = '';
  events.on('run:finished', (finished) => (exitReason = finished.exitReason));
  const message = leftoverCommitMessage(item.issue_number, item.title);
  let commit: LeftoverCommitResult | undefined;
  const exitCode = await runProject({
    projectDir: paths.projectDir,
    // Each item is a task of its own: a new run, with a breaker a halt on the last item left
    // open closed again. GITHUB_ISSUE ties the run to its issue (the GitHub lifecycle). The
    // item's outcome is read from ralph's own exit codes, whatever EXIT_CODES says.
    flags: { ...options.flags, GITHUB_ISSUE: item.issue_number === null ? '' : String(item.issue_number), CB_AUTO_RESET: true, EXIT_CODES: 'ralph' },
    deps,
    fresh: true,
    events,
    // Before the lifecycle pushes the branch for the pull request, which must hold the work.
    beforeCompletion: async () => {
      commit = await commitLeftovers(git, before, message);
    },
  });
  const outcome = decideItemOutcome(exitCode, exitReason);
  if (outcome.kind !== 'completed') return outcome;
  commit ??= await commitLeftovers(git, before, message);
  if (commit.kind === 'failed') return { kind: 'failed', reason: `the loop finished but its work could not be committed (${commit.message})` };
  if (commit.kind === 'committed') deps.logger.info(`Committed the leftover changes of ${describeItem(item)}`);
  return outcome;
}

function queueRunHeld(holder: { pid: number }, where: string): RalphError {
  return new RalphError('queue_busy', `Another queue run (ralph-queue process) is already working in this project (pid ${holder.pid}${where})`, {
    hint: 'wait for it or stop it, or remove .ralph/.queue.lock if you are sure it is gone',
  });
}
