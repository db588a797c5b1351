// User-facing text of ralph-import (its --help is rendered from its flag table, import-args.ts).

import { alignColumns } from '../../text/text-table.js';
import { quoteForShell } from '../../text/shell-quote.js';
import type { IssueSummary } from '../../tasks/github-issues.js';
import { toPlainTextLine } from '../../tasks/task-line.js';
import type { CompletenessResult } from '../../project/issue-completeness.js';

export function formatCompleteness(result: CompletenessResult): string[] {
  return [
    'Issue Completeness Analysis',
    `  Score: ${result.score}/100 (${result.level})`,
    `  Recommendation: ${result.recommendation}`,
    `  Missing: ${result.missing.length > 0 ? result.missing.join(' ') : 'nothing'}`,
  ];
}

/** The --dry-run table: NUMBER TITLE LABELS ASSIGNEE MILESTONE. */
export function formatCandidateTable(issues: readonly IssueSummary[]): string[] {
  const rows = issues.map((issue) => [
    `#${issue.number}`,
    truncate(toPlainTextLine(issue.title), 50),
    truncate(issue.labels.map(toPlainTextLine).join(','), 30) || '-',
    truncate(issue.assignees.map(toPlainTextLine).join(','), 20) || '-',
    truncate(toPlainTextLine(issue.milestone ?? ''), 20) || '-',
  ]);
  return alignColumns([['NUMBER', 'TITLE', 'LABELS', 'ASSIGNEE', 'MILESTONE'], ...rows]);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function importNextSteps(projectName: string): string[] {
  return [
    'Next steps:',
    `  1. cd ${quoteForShell(projectName)}`,
    '  2. Review .ralph/PROMPT.md, .ralph/fix_plan.md and .ralph/specs/requirements.md',
    '  3. Start the loop: ralph --monitor',
  ];
}
