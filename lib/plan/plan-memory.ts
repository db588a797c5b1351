// The plan has a memory: ralph remembers every open fix_plan.md item it has seen in the run (its
// text, normalised, and its position), so an open item the agent hides — deletes, moves into a
// code fence, a blockquote or an optional section, or makes unreadable with an invisible
// character — still counts as open for the exit gate, and is named. An item ticked in a loop in
// which ralph measured no new content is not done yet either: it counts once a loop with
// measured new content has seen it ticked. A plan ralph cannot read in full is open. Pure.

import type { PlanItem, PlanView } from './fix-plan.js';
import { asksForRevert, namesFile, shareTopic } from './item-evidence.js';
import { PlanItemIndex } from './plan-item-index.js';
import { checkChangedItems, settle, type CheckedReading, type DeltaCheck, type ItemsChange, type MemoryChange } from './plan-check-delta.js';
import { judgeItem, ownCopy, rememberItem, type HiddenHow, type HiddenItem, type PlanMemory, type RememberedItem } from './remembered-item.js';

export type { HiddenHow, HiddenItem, PlanMemory, RememberedItem } from './remembered-item.js';

export interface PlanCheck {
  memory: PlanMemory;
  /** The plan as the exit gate must see it: hidden items added back as open. */
  view: PlanView | null;
  hidden: HiddenItem[];
  /** Remembered open items now done, ticked in a loop with measured new content. */
  completed: number;
  /** Their keys (normalised texts). */
  completedKeys: string[];
  /** How `memory` differs from the memory checked, when the check knows (it looked at changed items only). */
  change?: MemoryChange;
}

/**
 * The plan as read this time: a view, none (no file), or a file ralph could not read in full.
 * `keys`: each item's normalised text, in the view's order, when the reader has them already;
 * `change`: how the items differ from the reading before, when the reader knows.
 */
export type PlanRead = { view: PlanView | null; keys?: readonly string[]; change?: ItemsChange } | { unreadable: string };

export function emptyPlanMemory(): PlanMemory {
  return { open: [] };
}

/** What ralph measured in the latest loop, as evidence for the items it saw ticked. */
export interface LoopEvidence {
  /** The content reached a state new in this run. */
  newContent: boolean;
  /** The content changed, maybe back to a state seen before (a revert). */
  changed: boolean;
  /** The control files (base names) the loop changed that open items asked for. */
  controlFiles?: readonly string[];
  /**
   * Whether an item (its key) may be closed by the evidence its text asks for (item-evidence.ts)
   * rather than new content: an item the user wrote, not one the agent added in this run, which
   * could word each new item to ask for evidence it can give for free. Every item when absent.
   */
  asksWithAuthority?: (key: string) => boolean;
}

/**
 * Checks the plan as read against what ralph remembers, and remembers the open items it shows.
 * `evidence`: what the latest loop changed as ralph measures it (a boolean: new content, which
 * is also a change). Which evidence closes which item: item-evidence.ts.
 */
export function checkPlanAgainstMemory(memory: PlanMemory, read: PlanRead, evidence: boolean | LoopEvidence): PlanCheck {
  const {
    newContent,
    changed,
    controlFiles = [],
    asksWithAuthority = () => true,
  } = typeof evidence === 'boolean' ? { newContent: evidence, changed: evidence } : evidence;
  const backed = (item: RememberedItem): boolean =>
    newContent || (asksWithAuthority(item.key) && ((changed && asksForRevert(item.text)) || controlFiles.some((name) => namesFile(item.text, name))));
  if ('unreadable' in read) {
    const view = syntheticView([...memory.open.map((item) => item.text), `the plan itself: ${read.unreadable}`]);
    return { memory, view, hidden: memory.open.map((item) => ({ key: item.key, text: item.text, how: 'removed' as const })), completed: 0, completedKeys: [] };
  }
  const items = read.view?.items ?? [];
  const keys = read.keys ?? itemKeys(items);
  const reading = { items, keys, ...(read.change ? { change: read.change } : {}) };
  // After a check that found every item where it was: the changed and held items only.
  const checked = checkChangedItems(memory, reading, backed) ?? checkWholePlan(memory, reading, backed);
  return { ...checked, view: addHidden(read.view, checked.hidden), completed: checked.completedKeys.length };
}

/** Every remembered item looked for in the plan, and every item of the plan looked at. */
function checkWholePlan(memory: PlanMemory, reading: CheckedReading, backed: (item: RememberedItem) => boolean): DeltaCheck {
  const { items, keys } = reading;
  // Each item's text normalised once per reading, found through a map: O(n) per loop, not n².
  const index = new PlanItemIndex(items, keys);
  const stillOpen: RememberedItem[] = [];
  const hidden: HiddenItem[] = [];
  const completedKeys: string[] = [];
  // Needed only when a remembered item is missing: most loops find every one.
  let added: readonly string[] | undefined;
  for (const remembered of memory.open) {
    const found = index.take(remembered.key, remembered.position);
    if (found === undefined) {
      added ??= newOpenKeysOnce(items, index.keys, memory);
      // Split into (or reworded as) open items about the same thing: they carry its work.
      if (added.some((key) => shareTopic(remembered.key, key))) continue;
      stillOpen.push(remembered);
      hidden.push({ key: remembered.key, text: remembered.text, how: 'removed' });
      continue;
    }
    const verdict = judgeItem(remembered, items[found]!, found, backed);
    if ('completed' in verdict) {
      completedKeys.push(remembered.key);
      continue;
    }
    stillOpen.push(verdict.keep);
    if (verdict.how) hidden.push({ key: remembered.key, text: remembered.text, how: verdict.how });
  }
  items.forEach((item, position) => {
    if (index.isTaken(position) || item.done || item.optional) return;
    stillOpen.push(rememberItem(item, index.keys[position]!, position));
  });
  // The same memory when no item changed: its writer and its readers need not look again.
  const next = sameObjects(stillOpen, memory.open) ? memory : { open: stillOpen };
  // A removed item stands nowhere: the next check looks for it in the whole plan again.
  if (!hidden.some((h) => h.how === 'removed')) settle(next, reading);
  return { memory: next, hidden, completedKeys };
}

// The new open keys of the last reading checked against each memory: a memory that holds a
// removed item is checked against the same reading every loop until the plan changes.
const addedFor = new WeakMap<readonly RememberedItem[], { items: readonly PlanItem[]; keys: readonly string[]; added: readonly string[] }>();

function newOpenKeysOnce(items: readonly PlanItem[], keys: readonly string[], memory: PlanMemory): readonly string[] {
  const last = addedFor.get(memory.open);
  if (last?.items === items && last.keys === keys) return last.added;
  const added = newOpenKeys(items, keys, memory);
  addedFor.set(memory.open, { items, keys, added });
  return added;
}

// The open blocking items whose text ralph does not remember: added in the latest loop.
function newOpenKeys(items: readonly PlanItem[], keys: readonly string[], memory: PlanMemory): string[] {
  const known = new Set(memory.open.map((item) => item.key));
  const added: string[] = [];
  items.forEach((item, position) => {
    if (!item.done && !item.optional && !known.has(keys[position]!)) added.push(keys[position]!);
  });
  return added;
}

function sameObjects<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

/** Each item's normalised text, in the plan's order (a text seen lately is not normalised again). */
export function itemKeys(items: readonly PlanItem[]): string[] {
  return items.map((item) => normalizedOnce(item.text));
}

// The normalised text of each raw text seen lately: a plan's items are read again every loop, and
// most of them have not changed. Bounded: emptied when it reaches NORMALIZED_KEPT texts.
const NORMALIZED_KEPT = 50_000;
const normalized = new Map<string, string>();

/** normalizeItemText, remembered for the texts seen lately. */
export function normalizedOnce(text: string): string {
  let key = normalized.get(text);
  if (key === undefined) {
    if (normalized.size >= NORMALIZED_KEPT) normalized.clear();
    // Kept as a copy of its own: the text read may be a slice that keeps the whole plan alive.
    const own = ownCopy(text);
    key = normalizeItemText(own);
    normalized.set(own, key);
  }
  return key;
}

/** Item text as ralph identifies it: invisible and formatting characters out, spaces collapsed, case folded. */
export function normalizeItemText(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\p{Cf}\p{Cc}]/gu, '')
    .replace(/[~*_`]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** How the user says an item is done when ralph holds it open (ralph --status numbers them). */
export const ACCEPT_HINT = 'If the work is done or the change was yours: ralph --accept-item N (ralph --status numbers them)';

/** `the agent removed 3 open items: a; b; c` — one line for the log. */
export function describeHiddenItems(hidden: HiddenItem[]): string {
  const removed = hidden.filter((h) => h.how === 'removed').length;
  const parts = [
    removed > 0 ? `the agent removed ${removed} open item${removed === 1 ? '' : 's'}` : '',
    countOf(hidden, 'optional', 'moved under an optional section'),
    countOf(hidden, 'ticked without measured change', 'ticked in a loop with no measured new content'),
  ].filter(Boolean);
  const names = hidden
    .slice(0, 10)
    .map((h) => h.text.slice(0, 80))
    .join('; ');
  return `${parts.join(', ')} of fix_plan.md; they count as still open: ${names}${hidden.length > 10 ? '; …' : ''}. ${ACCEPT_HINT}`;
}

function countOf(hidden: HiddenItem[], how: HiddenHow, words: string): string {
  const n = hidden.filter((h) => h.how === how).length;
  return n > 0 ? `${n} open item${n === 1 ? '' : 's'} ${words}` : '';
}

function addHidden(view: PlanView | null, hidden: HiddenItem[]): PlanView | null {
  if (hidden.length === 0) return view;
  const base = view ?? syntheticView([]);
  const ticked = hidden.filter((h) => h.how === 'ticked without measured change').length;
  return {
    ...base,
    blocking: { open: base.blocking.open + hidden.length, done: Math.max(0, base.blocking.done - ticked) },
    openItems: [...base.openItems, ...hidden.map((h) => `${h.text} (${h.how === 'removed' ? 'removed by the agent' : h.how})`)],
  };
}

function syntheticView(openItems: string[]): PlanView {
  return {
    blocking: { open: openItems.length, done: 0 },
    optional: { open: 0, done: 0 },
    openItems,
    items: [],
    sections: [],
    unclosedFenceLine: null,
  };
}
