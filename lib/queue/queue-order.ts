// The issue queue's ordering rules (the Bash tool's lib/queue_manager.sh): priority from labels,
// dependencies from the issue body, which pending item is ready next, and dependency cycles.
// Pure: items in, decisions out.

import { findCycle } from '../text/find-cycle.js';

/** The fields the ordering rules read. */
export interface OrderedItem {
  id: string;
  issue_number: number | null;
  priority: string;
  dependencies: number[];
  status: string;
}

const BARE_PRIORITY = /^p([0-9])$/i;
const PREFIXED_PRIORITY = /^priority:\s*p([0-9])$/i;

/** The most urgent `pN` / `priority: pN` label as `PN` (the lowest N); "" when none. */
export function priorityFromLabels(labels: readonly string[]): string {
  const digits = labels
    .map((label) => BARE_PRIORITY.exec(label.trim()) ?? PREFIXED_PRIORITY.exec(label.trim()))
    .filter((match) => match !== null)
    .map((match) => Number(match[1]));
  return digits.length === 0 ? '' : `P${Math.min(...digits)}`;
}

const DEPENDENCY = /\b(?:depends\s+on|blocked\s+by|requires)\s*:?\s*#(\d+)/gi;

/** Issue numbers named by `depends on #N`, `blocked by #N`, `requires #N`: deduplicated, ascending. */
export function parseIssueDependencies(text: string): number[] {
  const numbers = new Set<number>();
  for (const match of text.matchAll(DEPENDENCY)) {
    const n = Number(match[1]);
    if (Number.isSafeInteger(n) && n > 0) numbers.add(n);
  }
  return [...numbers].sort((a, b) => a - b);
}

/** 0-9 for P0-P9; unprioritised items sort last. */
export function priorityRank(priority: string): number {
  const match = /p([0-9])/i.exec(priority);
  return match ? Number(match[1]) : 99;
}

/** Items by priority, P0 first, first-added first within a priority (a stable sort). */
export function orderByPriority<T extends OrderedItem>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => priorityRank(a.priority) - priorityRank(b.priority));
}

/** Every dependency is completed, or is not in the queue at all (an outside prerequisite). */
export function dependenciesSatisfied(item: OrderedItem, items: readonly OrderedItem[]): boolean {
  return item.dependencies.every((dep) => {
    const found = items.find((other) => other.issue_number === dep);
    return found === undefined || found.status === 'completed';
  });
}

/** The pending item to work on next: ready, most urgent, first added. */
export function nextReadyItem<T extends OrderedItem>(items: readonly T[]): T | undefined {
  return orderByPriority(items.filter((item) => item.status === 'pending' && dependenciesSatisfied(item, items)))[0];
}

/**
 * A dependency cycle among the queue's issues, as the issue numbers around it with the first
 * repeated at the end (`[3, 5, 3]`); undefined when there is none. Dependencies outside the
 * queue cannot be part of a cycle.
 */
export function findDependencyCycle(items: readonly OrderedItem[]): number[] | undefined {
  const edges = new Map<number, number[]>();
  for (const item of items) {
    if (item.issue_number !== null) edges.set(item.issue_number, item.dependencies);
  }
  return findCycle(edges);
}

/** `#3 → #5 → #3`. */
export function formatCycle(cycle: readonly number[]): string {
  return cycle.map((n) => `#${n}`).join(' → ');
}
