// The gh calls of the GitHub issue lifecycle: comment, view, pull request, follow-up issue,
// labels, close, default branch. Each is one argv array; every body goes on stdin through
// `--body-file -`, and a title or label is always the value after its flag, never a flag or a
// shell word. A failure comes back with gh's own message for the caller to warn with.

import { formatIssueRef, repoArgs, type IssueRef } from './issue-ref.js';
import type { ExternalCliOptions } from '../tasks/external-cli.js';
import { runGh } from '../tasks/gh-cli.js';

export type GhContext = Omit<ExternalCliOptions, 'input'>;

export type GhResult<T = string> = { ok: true; value: T } | { ok: false; message: string };

const BODY_ON_STDIN = ['--body-file', '-'];

export function commentOnIssue(ref: IssueRef, body: string, ctx: GhContext): Promise<GhResult> {
  return gh(['issue', 'comment', String(ref.number), ...BODY_ON_STDIN, ...repoArgs(ref)], ctx, body);
}

export async function fetchIssueTitle(ref: IssueRef, ctx: GhContext): Promise<GhResult> {
  const viewed = await gh(['issue', 'view', String(ref.number), '--json', 'title', ...repoArgs(ref)], ctx);
  if (!viewed.ok) return viewed;
  const title = parseJsonField(viewed.value, (raw) => (raw as { title?: unknown }).title);
  return typeof title === 'string' ? { ok: true, value: title } : { ok: false, message: `gh issue view ${formatIssueRef(ref)} returned no title` };
}

/** `gh pr create`; the value is the URL gh prints. */
export async function createPullRequest(ref: IssueRef, pr: { title: string; body: string; draft: boolean }, ctx: GhContext): Promise<GhResult> {
  const args = ['pr', 'create', '--title', pr.title, ...BODY_ON_STDIN, ...(pr.draft ? ['--draft'] : []), ...repoArgs(ref)];
  return lastLine(await gh(args, ctx, pr.body));
}

/** `gh issue create`; the value is the new issue's URL. */
export async function createIssue(ref: IssueRef, issue: { title: string; body: string; label: string }, ctx: GhContext): Promise<GhResult> {
  const label = issue.label.trim() === '' ? [] : ['--label', issue.label];
  return lastLine(await gh(['issue', 'create', '--title', issue.title, ...BODY_ON_STDIN, ...label, ...repoArgs(ref)], ctx, issue.body));
}

export function addIssueLabels(ref: IssueRef, labels: readonly string[], ctx: GhContext): Promise<GhResult> {
  return gh(['issue', 'edit', String(ref.number), ...labels.flatMap((label) => ['--add-label', label]), ...repoArgs(ref)], ctx);
}

export function closeIssue(ref: IssueRef, ctx: GhContext): Promise<GhResult> {
  return gh(['issue', 'close', String(ref.number), ...repoArgs(ref)], ctx);
}

/** The repository's default branch as GitHub knows it (`gh repo view --json defaultBranchRef`). */
export async function fetchDefaultBranch(ref: IssueRef, ctx: GhContext): Promise<GhResult> {
  const viewed = await gh(['repo', 'view', ...(ref.repo ? [ref.repo] : []), '--json', 'defaultBranchRef'], ctx);
  if (!viewed.ok) return viewed;
  const name = parseJsonField(viewed.value, (raw) => (raw as { defaultBranchRef?: { name?: unknown } }).defaultBranchRef?.name);
  return typeof name === 'string' && name !== '' ? { ok: true, value: name } : { ok: false, message: 'gh repo view returned no default branch' };
}

async function gh(args: string[], ctx: GhContext, input?: string): Promise<GhResult> {
  const outcome = await runGh(args, { ...ctx, ...(input === undefined ? {} : { input }) });
  return outcome.ok ? { ok: true, value: outcome.stdout } : { ok: false, message: outcome.failure.message };
}

// gh prints the new pull request's or issue's URL as its last line of stdout.
function lastLine(result: GhResult): GhResult {
  if (!result.ok) return result;
  const line = result.value
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .pop();
  return { ok: true, value: line ?? '' };
}

function parseJsonField(text: string, pick: (raw: unknown) => unknown): unknown {
  try {
    const raw: unknown = JSON.parse(text);
    return raw !== null && typeof raw === 'object' ? pick(raw) : undefined;
  } catch {
    return undefined;
  }
}
