// GitHub issues for the queue, through `gh` with argv arrays: one issue by number
// (`gh issue view N --json number,title,body,labels,url`), or the open issues of a label or
// milestone filter, turned into queue items with their priority and dependencies.

import { priorityFromLabels, parseIssueDependencies } from './queue-order.js';
import { githubItemId } from './queue-items.js';
import type { QueueItem } from './queue-file.js';
import type { ExternalCliOptions } from '../tasks/external-cli.js';
import { runGh } from '../tasks/gh-cli.js';
import { CANDIDATE_LIMIT, listIssueCandidates } from '../tasks/github-issues.js';

export interface QueueIssue {
  number: number;
  title: string;
  body: string;
  labels: string[];
  url?: string;
}

export type QueueIssueResult = { ok: true; issue: QueueIssue } | { ok: false; message: string; hint?: string };

export async function fetchQueueIssue(number: number, repo: string, cli: ExternalCliOptions): Promise<QueueIssueResult> {
  const args = ['issue', 'view', String(number), '--json', 'number,title,body,labels,url'];
  if (repo) args.push('--repo', repo);
  const outcome = await runGh(args, cli);
  if (!outcome.ok) return { ok: false, message: outcome.failure.message, hint: outcome.failure.hint };
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(outcome.stdout) as Record<string, unknown>;
  } catch {
    return { ok: false, message: `gh issue view ${number} returned output that is not JSON` };
  }
  if (raw.number === undefined || typeof raw.title !== 'string') {
    return { ok: false, message: `gh issue view ${number} returned no issue number or title` };
  }
  // The item is the issue asked for: another number (or a 1.5, a -3) would also be one queue.json
  // cannot hold, and one such item makes the whole file unreadable.
  if (raw.number !== number) return { ok: false, message: `gh issue view ${number} answered for issue ${JSON.stringify(raw.number)}, not #${number}` };
  const labels = Array.isArray(raw.labels)
    ? raw.labels.map((label) => (label as { name?: unknown } | null)?.name).filter((name): name is string => typeof name === 'string')
    : [];
  return {
    ok: true,
    issue: {
      number: raw.number,
      title: raw.title,
      body: typeof raw.body === 'string' ? raw.body : '',
      labels,
      url: typeof raw.url === 'string' ? raw.url : undefined,
    },
  };
}

export type IssueNumbersResult = { ok: true; issues: Array<{ number: number; milestone?: string }> } | { ok: false; message: string; hint?: string };

/** The open issues carrying every label in `labels` and/or in `milestone`. */
export async function findQueueIssues(filter: { labels: string[]; milestone?: string; repo: string }, cli: ExternalCliOptions): Promise<IssueNumbersResult> {
  const found = await listIssueCandidates({ state: 'open', labels: filter.labels, milestone: filter.milestone, repo: filter.repo || undefined }, cli);
  if (!found.ok) return { ok: false, message: found.message, hint: found.hint };
  if (found.issues.length >= CANDIDATE_LIMIT)
    return { ok: false, message: `the filter matches ${CANDIDATE_LIMIT} or more issues`, hint: 'narrow it with another --label or a --milestone' };
  // gh lists newest first; the queue keeps the order issues were filed in.
  return { ok: true, issues: found.issues.map((issue) => ({ number: issue.number, milestone: issue.milestone })).sort((a, b) => a.number - b.number) };
}

export function githubQueueItem(issue: QueueIssue, milestone: string | null, now: string): QueueItem {
  return {
    source: 'github',
    id: githubItemId(issue.number),
    issue_number: issue.number,
    title: issue.title,
    priority: priorityFromLabels(issue.labels),
    labels: issue.labels.map((name) => ({ name })),
    dependencies: parseIssueDependencies(issue.body),
    milestone,
    status: 'pending',
    added_at: now,
    started_at: null,
    completed_at: null,
    error_message: '',
    path: null,
  };
}
