// Choosing one GitHub issue among filter candidates: client-side filters
// (excluded labels, a title pattern where `*` is the only wildcard), ascending number order,
// and the `first` / `priority` strategies. Pure: no gh, no prompts.

import type { IssueSummary } from '../tasks/github-issues.js';

export type SelectionStrategy = 'first' | 'interactive' | 'priority';

export interface ClientFilters {
  excludeLabels: string[];
  /** Case-insensitive, anchored; `*` matches anything, every other character is literal. */
  titlePattern?: string;
}

export function applyClientFilters(issues: readonly IssueSummary[], filters: ClientFilters): IssueSummary[] {
  const excluded = new Set(filters.excludeLabels.map((label) => label.trim().toLowerCase()).filter(Boolean));
  const title = filters.titlePattern === undefined ? undefined : titlePatternToRegExp(filters.titlePattern);
  return issues
    .filter((issue) => !issue.labels.some((label) => excluded.has(label.toLowerCase())))
    .filter((issue) => title === undefined || title.test(issue.title))
    .sort((a, b) => a.number - b.number);
}

export function titlePatternToRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 'is');
}

/** `first` = lowest number; `priority` = lowest P0–P9 label, ties by number, none → first. */
export function selectIssue(candidates: readonly IssueSummary[], strategy: 'first' | 'priority'): IssueSummary | undefined {
  const sorted = [...candidates].sort((a, b) => a.number - b.number);
  if (strategy === 'first' || sorted.length <= 1) return sorted[0];
  let best: IssueSummary | undefined;
  let bestPriority = Number.POSITIVE_INFINITY;
  for (const issue of sorted) {
    const priority = issuePriority(issue);
    if (priority !== undefined && priority < bestPriority) {
      best = issue;
      bestPriority = priority;
    }
  }
  return best ?? sorted[0];
}

/** The lowest digit among labels `P0`…`P9` or `priority: P<n>`; undefined when none. */
export function issuePriority(issue: IssueSummary): number | undefined {
  const digits = issue.labels
    .map((label) => /^(?:priority:\s*)?p([0-9])$/i.exec(label.trim())?.[1])
    .filter((digit): digit is string => digit !== undefined)
    .map(Number);
  return digits.length > 0 ? Math.min(...digits) : undefined;
}
