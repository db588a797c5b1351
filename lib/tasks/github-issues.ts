// GitHub issues for ralph-import: one `gh issue list` for the candidates of
// a filter query, and `gh issue view` for the chosen issue. Values are normalised to plain
// shapes here so selection and scoring stay pure.

import type { ExternalCliOptions } from './external-cli.js';
import { runGh } from './gh-cli.js';
import { taskSourceFailure, type TaskSourceFailure } from './task-source-result.js';

export interface IssueSummary {
  number: number;
  title: string;
  labels: string[];
  assignees: string[];
  milestone?: string;
  url?: string;
}

export interface IssueComment {
  author: string;
  body: string;
}

export interface IssueDetail extends IssueSummary {
  body: string;
  comments: IssueComment[];
}

export interface IssueQuery {
  state: 'open' | 'closed' | 'all';
  /** Every label must be present (gh ANDs repeated --label). */
  labels: string[];
  search?: string;
  /** A login, `@me`, or `none` for unassigned issues. */
  assignee?: string;
  milestone?: string;
  repo?: string;
}

export const CANDIDATE_LIMIT = 500;

export type GhFailure = { ok: false; reason: TaskSourceFailure; message: string; hint?: string };

export async function listIssueCandidates(query: IssueQuery, options: ExternalCliOptions): Promise<{ ok: true; issues: IssueSummary[] } | GhFailure> {
  const args = ['issue', 'list', '--state', query.state, '--limit', String(CANDIDATE_LIMIT), '--json', 'number,title,labels,assignees,milestone,url'];
  for (const label of query.labels) args.push('--label', label);
  if (query.milestone) args.push('--milestone', query.milestone);
  const unassigned = query.assignee === 'none';
  if (query.assignee && !unassigned) args.push('--assignee', query.assignee);
  const search = [query.search, unassigned ? 'no:assignee' : undefined].filter(Boolean).join(' ');
  if (search) args.push('--search', search);
  if (query.repo) args.push('--repo', query.repo);
  const outcome = await runGh(args, options);
  if (!outcome.ok) return outcome.failure;
  const list = parseJsonArray(outcome.stdout);
  if (!list) return taskSourceFailure('failed', 'gh issue list returned output that is not a JSON array');
  return { ok: true, issues: list.map(toSummary).filter((issue): issue is IssueSummary => issue !== undefined) };
}

export async function viewIssue(number: number, repo: string | undefined, options: ExternalCliOptions): Promise<{ ok: true; issue: IssueDetail } | GhFailure> {
  const args = ['issue', 'view', String(number), '--json', 'number,title,body,labels,comments,url'];
  if (repo) args.push('--repo', repo);
  const outcome = await runGh(args, options);
  if (!outcome.ok) return outcome.failure;
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(outcome.stdout) as Record<string, unknown>;
  } catch {
    return taskSourceFailure('failed', `gh issue view ${number} returned output that is not JSON`);
  }
  const summary = toSummary(raw);
  if (!summary) return taskSourceFailure('failed', `gh issue view ${number} returned no issue number or title`);
  const comments = Array.isArray(raw.comments) ? raw.comments.map(toComment).filter((c): c is IssueComment => c !== undefined) : [];
  return { ok: true, issue: { ...summary, body: typeof raw.body === 'string' ? raw.body : '', comments } };
}

function toSummary(raw: unknown): IssueSummary | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const item = raw as Record<string, unknown>;
  if (typeof item.number !== 'number' || typeof item.title !== 'string') return undefined;
  const milestone = (item.milestone as { title?: unknown } | null | undefined)?.title;
  return {
    number: item.number,
    title: item.title,
    labels: names(item.labels, 'name'),
    assignees: names(item.assignees, 'login'),
    milestone: typeof milestone === 'string' ? milestone : undefined,
    url: typeof item.url === 'string' ? item.url : undefined,
  };
}

function toComment(raw: unknown): IssueComment | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const item = raw as { author?: { login?: unknown }; body?: unknown };
  if (typeof item.body !== 'string') return undefined;
  return { author: typeof item.author?.login === 'string' ? item.author.login : 'unknown', body: item.body };
}

function names(list: unknown, key: string): string[] {
  if (!Array.isArray(list)) return [];
  return list
    .map((entry) => (entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>)[key] : undefined))
    .filter((name): name is string => typeof name === 'string');
}

function parseJsonArray(text: string): unknown[] | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
