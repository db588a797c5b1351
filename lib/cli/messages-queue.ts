// What `ralph-queue` prints: its help, and the queue as `ralph-queue status` shows it (the Bash
// tool's layout). Titles come from issues: shown as one line of plain text.

import type { QueueCounts } from '../queue/queue-items.js';
import type { QueueFile } from '../queue/queue-file.js';
import { toPlainTextLine } from '../tasks/task-line.js';

export const QUEUE_HELP = `ralph-queue - Batch processing and issue queue management

Usage: ralph-queue <command> [options]

Commands:
  add N [N...]          Add GitHub issues by number (also --github-issues N,N)
      --label L[,L]     the open issues carrying every label (also --github-label)
      --milestone M     the open issues in a milestone (also --github-milestone)
      --prd FILE        a local PRD/spec file
      --repo OWNER/REPO the repository (default: the current one)
  status [--json]       Show the queue (--json: the counts by status)
  next                  Print the id of the next ready item
  remove <id|N>         Remove an item by id or issue number
  clear                 Remove all items
  reorder               Sort the queue by priority (P0 first)
  validate              Check for circular dependencies (exit 1 on a cycle)
  process [--halt-on-failure] [--parallel N]
                        Work through the ready items, one ralph run each
      --parallel N      N items at a time (2-16), each in its own git worktree and
                        branch, merged back one at a time; an item waits until the
                        items it depends on have merged; completed once merged,
                        failed with its branch kept otherwise
  resume [--halt-on-failure] [--parallel N]
                        Continue with the remaining pending items

Priority: the lowest P0-P9 (or "priority: pN") label; unlabelled last; first added first.
Dependencies: "depends on #N", "blocked by #N", "requires #N" in an issue's body; an issue
not in the queue counts as done.

Exit codes: 0 done; 1 bad usage, nothing ready (next), a cycle (validate), or a failed item
(process); 130/143 interrupted.

Examples:
  ralph-queue add 69 70 71
  ralph-queue add --label "bug,P0"
  ralph-queue status
  ralph-queue process --halt-on-failure
  ralph-queue process --parallel 3`;

export function formatQueueStatus(queue: QueueFile, counts: QueueCounts): string {
  const lines = [
    `Queue: ${counts.total} total — ${counts.pending} pending, ${counts.processing} processing, ${counts.completed} completed, ${counts.failed} failed, ${counts.skipped} skipped`,
  ];
  if (queue.repository) lines.push(`Repository: ${toPlainTextLine(queue.repository)}`);
  lines.push('');
  if (queue.queue.length === 0) lines.push('  (queue is empty)');
  for (const item of queue.queue) {
    const ref = item.issue_number === null ? item.id : `#${item.issue_number}`;
    const deps = item.dependencies.length > 0 ? `  deps: ${item.dependencies.map((n) => `#${n}`).join(', ')}` : '';
    const error = item.status === 'failed' && item.error_message ? ` — ${toPlainTextLine(item.error_message)}` : '';
    lines.push(`  [${item.priority || '--'}] ${ref} ${toPlainTextLine(item.title)}  (${item.status}${error})${deps}`);
  }
  return `${lines.join('\n')}\n`;
}
