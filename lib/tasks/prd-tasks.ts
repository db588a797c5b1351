// Task extraction from a requirements document without AI (ralph-enable --from prd): checkbox
// items become open tasks, then the first numbered-list items; a document with neither gives its
// top-level plain bullets ("- task"), so a list written without boxes still becomes the plan.

import { toPlainTextLine } from './task-line.js';

const CHECKBOX = /^(\s*)[-*]\s*\[\s*[xX ]?\s*\]\s*(.*)$/;
const NUMBERED = /^\s*[0-9]+\.\s+(.*)$/;
// A bullet at the start of the line (nested bullets are details of the one above).
const BULLET = /^[-*+][ \t]+(.*)$/;
const MAX_NUMBERED = 20;
const MAX_TASKS = 30;

/** What a PRD must hold for tasks to be imported, said when none were. */
export const PRD_TASK_FORMATS =
  'ralph imports checkbox items ("- [ ] task"), else numbered items ("1. task"), else plain bullets ("- task"); headings and paragraphs are not read';

/**
 * Returns `- [ ] …` lines: every checkbox item (checked ones reopened), then numbered items;
 * only when there are neither, the top-level plain bullets.
 */
export function extractPrdTasks(document: string): string[] {
  const checkboxes: string[] = [];
  const numbered: string[] = [];
  const bullets: string[] = [];
  for (const line of document.split(/\r?\n/)) {
    const box = CHECKBOX.exec(line);
    if (box) {
      const text = toPlainTextLine(box[2] ?? '');
      if (text) checkboxes.push(`${box[1] ?? ''}- [ ] ${text}`);
      continue;
    }
    const item = NUMBERED.exec(line);
    if (item && numbered.length < MAX_NUMBERED) {
      const text = toPlainTextLine(item[1] ?? '');
      if (text) numbered.push(`- [ ] ${text}`);
      continue;
    }
    const bullet = BULLET.exec(line);
    const text = toPlainTextLine(bullet?.[1] ?? '');
    if (text) bullets.push(`- [ ] ${text}`);
  }
  const tasks = checkboxes.length + numbered.length > 0 ? [...checkboxes, ...numbered] : bullets;
  return tasks.slice(0, MAX_TASKS);
}
