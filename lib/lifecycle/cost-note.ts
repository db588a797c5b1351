// The run's cost as ralph reports it on a GitHub issue, and as `ralph-fleet status` reads it back
// (pure). Progress comments and every comment a fleet job ends with (done, continued, stopped,
// needs help) carry the run's spend so far: a line for people and a hidden marker for status.
// The issue's comments are what a user's machine reaches in one gh call, they outlive the run
// (the fleet's state branch is deleted when it ends) and need no artifact download. A marker
// counts only in a comment by GitHub Actions' bot or by someone with write access to the
// repository (the login behind RALPH_GITHUB_TOKEN): a stranger's comment cannot set the cost.

import { formatUsd, type SpendState } from '../limits/spend.js';

/** The run's known cost, its agent calls, and the calls whose cost is not known. */
export type SpendFigures = Pick<SpendState['run'], 'costUsd' | 'loops' | 'unknownCostLoops'>;

export interface GhIssueComment {
  author?: { login?: string } | null;
  authorAssociation?: string;
  body?: string;
  createdAt?: string;
}

export interface ReportedCost extends SpendFigures {
  /** When the comment that reported it was posted. */
  reportedAt: string;
}

const MARKER = /<!-- ralph-fleet-cost (\{[^\n]*?\}) -->/;
/** GitHub Actions' bot, as GraphQL (gh's --json) and REST name it. */
const ACTIONS_BOT = new Set(['github-actions', 'github-actions[bot]']);
const WRITERS = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

/** The lines a job's comment ends with: the spend in words, then the marker status reads. */
export function costNote(spend: SpendFigures): string {
  const unknown = spend.unknownCostLoops > 0 ? `, ${spend.unknownCostLoops} of unknown cost` : '';
  const marker = JSON.stringify({ cost_usd: roundUsd(spend.costUsd), calls: spend.loops, unknown_cost_calls: spend.unknownCostLoops });
  return `Cost so far: $${formatUsd(spend.costUsd)} over ${spend.loops} agent call${spend.loops === 1 ? '' : 's'}${unknown}.\n<!-- ralph-fleet-cost ${marker} -->`;
}

/** The newest cost a trusted comment reported, or undefined when none did. */
export function latestReportedCost(comments: readonly GhIssueComment[]): ReportedCost | undefined {
  let latest: ReportedCost | undefined;
  for (const comment of comments) {
    if (!isTrusted(comment)) continue;
    const spend = readMarker(comment.body ?? '');
    const reportedAt = comment.createdAt ?? '';
    if (spend && (!latest || reportedAt >= latest.reportedAt)) latest = { ...spend, reportedAt };
  }
  return latest;
}

function isTrusted(comment: GhIssueComment): boolean {
  return ACTIONS_BOT.has(comment.author?.login ?? '') || WRITERS.has(comment.authorAssociation ?? '');
}

function readMarker(body: string): SpendFigures | undefined {
  const match = MARKER.exec(body);
  if (!match) return undefined;
  let parsed: { cost_usd?: unknown; calls?: unknown; unknown_cost_calls?: unknown };
  try {
    parsed = JSON.parse(match[1]!) as typeof parsed;
  } catch {
    return undefined;
  }
  const count = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined);
  const costUsd = typeof parsed.cost_usd === 'number' && Number.isFinite(parsed.cost_usd) && parsed.cost_usd >= 0 ? parsed.cost_usd : undefined;
  const loops = count(parsed.calls);
  if (costUsd === undefined || loops === undefined) return undefined;
  return { costUsd, loops, unknownCostLoops: count(parsed.unknown_cost_calls) ?? 0 };
}

// Sums of floats (0.026999999999999996): rounded as status.json's copy is.
function roundUsd(usd: number): number {
  return Number(usd.toFixed(6));
}
