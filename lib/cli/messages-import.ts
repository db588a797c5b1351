// User-facing text of ralph-import.

import { CONFIG_SCHEMA } from '../config/schema.js';
import { alignColumns } from '../text/text-table.js';
import { quoteForShell } from '../monitor/shell-quote.js';
import type { IssueSummary } from '../tasks/github-issues.js';
import { toPlainTextLine } from '../tasks/task-line.js';
import type { CompletenessResult } from '../project/issue-completeness.js';

export const IMPORT_HELP = `Usage:
  ralph-import <source-file> [project-name]
  ralph-import --github-issue <N> [project-name]
  ralph-import <filters> [modifiers] [project-name]

Create a Ralph project from a requirements document (.md, .txt or .json) or a GitHub issue.
Claude Code turns the document into .ralph/PROMPT.md, .ralph/fix_plan.md and
.ralph/specs/requirements.md. The document is treated as data, never as instructions.
The project name defaults to the file name without its extension (or the issue title).

GitHub issue:
  --github-issue <N>               Import issue N
Filters (choose one issue among matches):
  --github-search <query>          GitHub search query
  --github-label <l1,l2>           Issues with all of these labels
  --github-title <pattern>         Title match, case-insensitive; * is the only wildcard
  --github-assignee <user|@me|none>
  --github-milestone <name>
  --github-state <open|closed|all> (default: open)
Modifiers:
  --exclude-label <l1,l2>          Skip issues with any of these labels
  --select <first|interactive|priority>  How to pick among matches (default: first)
  --dry-run                        List the matches and the pick; import nothing
Common:
  --repo <owner/repo>              Repository (default: the current one)
  --include-comments               Add the issue's comments to the document
Plan generation (GitHub only):
  --generate-plan | --no-generate-plan   Always / never generate an implementation plan
                                         (default: when the completeness score is low)
  --plan-model <model>             Model for plan generation
  --completeness-threshold <0-100> Score below which a plan is suggested (default: 60)
  --auto-approve                   Accept the generated plan without asking

  --force                          Import over an existing Ralph project: the files it replaces
                                   are first copied to .ralph_backup_<time>/ (without it, refused)
  -h, --help                       Show this help
  --version                        Show the version

Environment: CLAUDE_CODE_CMD (else .ralphrc, else claude on PATH or in node_modules/.bin), CLAUDE_TIMEOUT_MINUTES (default ${CONFIG_SCHEMA.CLAUDE_TIMEOUT_MINUTES.default}).
Exit codes: 0 imported (or dry run), 1 error (also: no source given).
`;

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
