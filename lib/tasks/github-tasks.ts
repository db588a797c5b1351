// GitHub issues as tasks: open issues, optionally with one label, as
// `- [ ] [#<number>] <title>`. limit > 0 uses `gh issue list`; limit 0 means every issue,
// fetched page by page through `gh api --paginate` (pull requests dropped).

import type { ExternalCliOptions } from './external-cli.js';
import { checkGhReady, parseConcatenatedJsonArrays, runGh } from './gh-cli.js';
import { formatTaskLine } from './task-line.js';
import { taskSourceFailure, type TaskSourceResult } from './task-source-result.js';

export interface GitHubTaskOptions extends ExternalCliOptions {
  /** Only issues with this label; empty or undefined = all open issues. */
  label?: string;
  /** Maximum number of issues; 0 = all. */
  limit: number;
}

interface IssueSummary {
  number?: unknown;
  title?: unknown;
  pull_request?: unknown;
}

export async function fetchGitHubTasks(options: GitHubTaskOptions): Promise<TaskSourceResult> {
  const ready = await checkGhReady(options);
  if (!ready.ok) return ready.failure;
  const label = options.label?.trim() ?? '';
  const outcome =
    options.limit > 0
      ? await runGh(
          ['issue', 'list', '--state', 'open', '--limit', String(options.limit), '--json', 'number,title,labels', ...(label ? ['--label', label] : [])],
          options,
        )
      : await runGh(
          [
            'api',
            '--method',
            'GET',
            'repos/{owner}/{repo}/issues',
            '-f',
            'state=open',
            '-f',
            'per_page=100',
            '--paginate',
            ...(label ? ['-f', `labels=${label}`] : []),
          ],
          options,
        );
  if (!outcome.ok) return outcome.failure;
  let issues: IssueSummary[];
  try {
    issues = parseConcatenatedJsonArrays(outcome.stdout) as IssueSummary[];
  } catch (error) {
    return taskSourceFailure('failed', `gh returned output that is not JSON: ${(error as Error).message}`);
  }
  return { ok: true, tasks: toTaskLines(issues) };
}

/** Open-issue count for the wizard's detection phase; undefined when gh is not usable. */
export async function countGitHubIssues(options: ExternalCliOptions): Promise<number | undefined> {
  const ready = await checkGhReady(options);
  if (!ready.ok) return undefined;
  const outcome = await runGh(['issue', 'list', '--state', 'open', '--limit', '1000', '--json', 'number'], options);
  if (!outcome.ok) return undefined;
  try {
    const list: unknown = JSON.parse(outcome.stdout);
    return Array.isArray(list) ? list.length : undefined;
  } catch {
    return undefined;
  }
}

function toTaskLines(issues: readonly IssueSummary[]): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue === null || typeof issue !== 'object' || issue.pull_request != null) continue;
    if (typeof issue.number !== 'number' || typeof issue.title !== 'string' || issue.title.trim() === '') continue;
    lines.push(formatTaskLine({ id: `#${issue.number}`, title: issue.title }));
  }
  return lines;
}
