// What `ralph-queue` prints: the queue as `ralph-queue status` shows it (the Bash tool's
// layout); its help is rendered from its command table (queue-args.ts). Titles come from
// issues: shown as one line of plain text.

import type { QueueCounts } from '../../queue/queue-items.js';
import type { QueueFile } from '../../queue/queue-file.js';
import { toPlainTextLine } from '../../tasks/task-line.js';

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
