// The issue queue's commands, shared by `ralph-queue <command>` and ralph's queue flags
// (`--queue-status`, `--process-queue`, …). Each acts on the project's .ralph/queue.json.

import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, relative, resolve, sep } from 'node:path';
import { homedir } from 'node:os';
import { loadConfig } from '../../config/load-config.js';
import { addItem, countByStatus, matchesRef, prdItemId } from '../../queue/queue-items.js';
import { findDependencyCycle, formatCycle, nextReadyItem, orderByPriority } from '../../queue/queue-order.js';
import { RalphError } from '../../errors.js';
import { createDeps } from '../../platform/create-deps.js';
import type { Deps } from '../../platform/deps.js';
import { projectPaths, ralphPaths, type RalphPaths } from '../../state/paths.js';
import type { QueueItem } from '../../queue/queue-file.js';
import { fetchQueueIssue, findQueueIssues, githubQueueItem } from '../../queue/queue-issues.js';
import { openQueueStore } from '../../queue/queue-store.js';
import { ledgerPath, recordQueuedPrd } from '../../state/ledger.js';
import { formatQueueStatus } from './messages-queue.js';
import { sanitizeLine, stripTerminalControls } from '../../text/terminal-text.js';
import { notAProjectHint } from '../../project/nested-project.js';

export type QueueCommand =
  | { kind: 'add'; issues: number[]; labels: string[]; milestone?: string; prd?: string; repo?: string }
  | { kind: 'status'; json: boolean }
  | { kind: 'next' }
  | { kind: 'remove'; ref: string }
  | { kind: 'clear' }
  | { kind: 'reorder' }
  | { kind: 'validate' }
  | { kind: 'process'; haltOnFailure: boolean; /** Items at a time: 1 one after another, 2-16 side by side in worktrees. */ parallel: number };

export interface QueueCommandContext {
  projectDir: string;
  /** ralph's flag layer, for the runs `process` starts. */
  flags: Record<string, string | number | boolean>;
  write: (text: string) => void;
  /** What the command runs with; the command line builds its own (the project's cwd). */
  deps?: Deps;
}

export async function runQueueCommand(command: QueueCommand, ctx: QueueCommandContext): Promise<number> {
  const paths = ralphPaths(ctx.projectDir);
  if (!existsSync(paths.ralphDir)) {
    throw new RalphError('not_a_project', 'This directory is not a Ralph project (no .ralph/ folder)', {
      hint: notAProjectHint(ctx.projectDir, 'cd into a Ralph project, or run ralph-enable here'),
    });
  }
  const deps = ctx.deps ?? createDeps({ cwd: ctx.projectDir, logFile: command.kind === 'process' ? paths.ralphLog : undefined });
  const store = openQueueStore(paths.queue, deps);
  switch (command.kind) {
    case 'add':
      return addToQueue(command, paths, deps);
    case 'status': {
      const queue = store.read();
      const counts = countByStatus(queue.queue);
      // Ids, titles and priorities come from queue.json, which the agent can write.
      ctx.write(command.json ? `${JSON.stringify(counts, null, 2)}\n` : stripTerminalControls(formatQueueStatus(queue, counts)));
      return 0;
    }
    case 'next': {
      const next = nextReadyItem(store.read().queue);
      if (!next) {
        deps.logger.info('No ready items in the queue');
        return 1;
      }
      ctx.write(`${sanitizeLine(next.id)}\n`);
      return 0;
    }
    case 'remove': {
      if (!store.read().queue.some((item) => matchesRef(item, command.ref))) {
        throw new RalphError('queue_item_missing', `'${command.ref}' is not in the queue`, { hint: 'run ralph-queue status for the queued ids' });
      }
      store.update((queue) => ({ ...queue, queue: queue.queue.filter((item) => !matchesRef(item, command.ref)) }));
      deps.logger.info(`Removed '${command.ref}' from the queue`);
      return 0;
    }
    case 'clear':
      store.update((queue) => ({ ...queue, queue: [] }));
      deps.logger.info('Queue cleared');
      return 0;
    case 'reorder':
      store.update((queue) => ({ ...queue, queue: orderByPriority(queue.queue) }));
      deps.logger.info('Queue reordered by priority');
      return 0;
    case 'validate': {
      const cycle = findDependencyCycle(store.read().queue);
      if (cycle) {
        throw new RalphError('queue_cycle', `circular dependency in the queue: ${formatCycle(cycle)}`, {
          hint: 'remove one of those issues (ralph-queue remove N) or edit its "depends on" line',
        });
      }
      deps.logger.info('No circular dependencies detected');
      return 0;
    }
    case 'process': {
      const { processQueue } = await import('../../queue/process-queue.js');
      const { config } = loadConfig({ projectDir: ctx.projectDir, homeDir: homedir(), env: process.env, flags: ctx.flags });
      return processQueue({
        paths: projectPaths(ctx.projectDir, config),
        flags: ctx.flags,
        deps,
        haltOnFailure: command.haltOnFailure,
        parallel: command.parallel,
      });
    }
  }
}

async function addToQueue(command: Extract<QueueCommand, { kind: 'add' }>, paths: RalphPaths, deps: Deps): Promise<number> {
  const store = openQueueStore(paths.queue, deps);
  const repo = command.repo ?? store.read().repository;
  const items: QueueItem[] = [];
  if (command.prd !== undefined) items.push(prdItem(command.prd, paths.projectDir, store.now(), deps));
  const cli = { runner: deps.processRunner, cwd: paths.projectDir, env: deps.env };
  const wanted: Array<{ number: number; milestone: string | null }> = command.issues.map((number) => ({ number, milestone: null }));
  if (command.labels.length > 0 || command.milestone !== undefined) {
    const found = await findQueueIssues({ labels: command.labels, milestone: command.milestone, repo }, cli);
    if (!found.ok) throw new RalphError('gh_failed', found.message, { hint: found.hint });
    if (found.issues.length === 0) deps.logger.warn('No open issues match that filter');
    wanted.push(...found.issues.map((issue) => ({ number: issue.number, milestone: issue.milestone ?? null })));
  }
  let failed = 0;
  for (const { number, milestone } of wanted) {
    const fetched = await fetchQueueIssue(number, repo, cli);
    if (!fetched.ok) {
      failed++;
      deps.logger.error(`Could not fetch issue #${number}: ${fetched.message}${fetched.hint ? ` (${fetched.hint})` : ''}`);
      continue;
    }
    items.push(githubQueueItem(fetched.issue, milestone, store.now()));
  }
  store.update((queue) => {
    let list = queue.queue;
    for (const item of items) {
      const result = addItem(list, item);
      list = result.items;
      if (result.added)
        deps.logger.info(`Queued ${item.issue_number === null ? item.id : `#${item.issue_number}`}${item.priority ? ` [${item.priority}]` : ''}`);
      else deps.logger.warn(`The queue already holds '${item.id}'; skipped`);
    }
    return { ...queue, repository: queue.repository || (command.repo ?? ''), queue: list };
  });
  return failed > 0 ? 1 : 0;
}

/**
 * A PRD item: its file kept relative to the project (queue.json holds no path of this machine, and
 * the queue still works after the project moves), the id a slug of that relative path.
 */
function prdItem(file: string, projectDir: string, now: string, deps: Deps): QueueItem {
  const absolute = resolve(deps.cwd, file);
  if (!existsSync(absolute) || !statSync(absolute).isFile()) {
    throw new RalphError('prd_missing', `PRD file not found: ${file}`, { hint: 'give the path of an existing file' });
  }
  // The ledger, not queue.json (which the agent can write), says which files the user queued:
  // processing reads no file outside the project that is not recorded there.
  recordQueuedPrd(ledgerPath(projectDir, deps.env, deps.homeDir), projectDir, realpathSync(absolute));
  const path = relative(projectDir, absolute).split(sep).join('/');
  return {
    source: 'prd',
    id: prdItemId(path),
    issue_number: null,
    title: basename(absolute),
    priority: '',
    labels: [],
    dependencies: [],
    milestone: null,
    status: 'pending',
    added_at: now,
    started_at: null,
    completed_at: null,
    error_message: '',
    path,
  };
}
