// The requirements document ralph-import builds from a GitHub issue, and the
// project name derived from its title.

import type { IssueDetail } from '../tasks/github-issues.js';
import { toPlainTextLine } from '../tasks/task-line.js';

/** Lowercase, every run of non-alphanumerics → `-`, trimmed; `issue-N` when nothing is left. */
export function slugifyIssueTitle(title: string, number: number): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug || `issue-${number}`;
}

export function buildIssueDocument(issue: IssueDetail, includeComments: boolean): string {
  const labels = issue.labels.length > 0 ? issue.labels.join(', ') : 'none';
  const lines = [
    `# ${toPlainTextLine(issue.title)}`,
    '',
    `> GitHub issue #${issue.number} | Labels: ${labels}${issue.url ? ` | ${issue.url}` : ''}`,
    '',
    issue.body.trim(),
  ];
  if (includeComments && issue.comments.length > 0) {
    lines.push('', '## Discussion');
    for (const comment of issue.comments) lines.push('', `**${comment.author}**:`, '', comment.body.trim());
  }
  return `${lines.join('\n')}\n`;
}

export function appendGeneratedPlan(document: string, plan: string): string {
  return `${document.trimEnd()}\n\n## Implementation Plan (generated)\n\n${plan.trim()}\n`;
}
