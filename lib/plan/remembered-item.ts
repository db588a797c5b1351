// What ralph remembers of the plan's open items, and what becomes of a remembered item found in
// the plan as read now: kept open, held open although the plan shows it otherwise (and how), or
// completed. Shared by the check of a whole plan (plan-memory.ts) and of its changed items only
// (plan-check-delta.ts). Pure.

import type { PlanItem } from './fix-plan.js';

export interface RememberedItem {
  /** The normalised text: what identifies the item. */
  key: string;
  /** The text as it was last seen open, for the log and the loop context. */
  text: string;
  /** Its index among the plan's items when it was last seen. */
  position: number;
}

export interface PlanMemory {
  /** Open blocking items seen in this run that are not done yet as far as ralph can tell. */
  open: RememberedItem[];
}

export type HiddenHow = 'removed' | 'optional' | 'ticked without measured change';

export interface HiddenItem {
  /** The normalised text of the remembered item. */
  key: string;
  text: string;
  how: HiddenHow;
}

/** What becomes of a remembered item found at `found`: kept (held open: `how` says why), or completed. */
export type Verdict = { keep: RememberedItem; how?: HiddenHow } | { completed: true };

/**
 * The verdict on `remembered`, found as `item` at index `found`; `backed`: whether the latest
 * loop's evidence closes it. The same object is kept when nothing about it changed.
 */
export function judgeItem(remembered: RememberedItem, item: PlanItem, found: number, backed: (item: RememberedItem) => boolean): Verdict {
  const at = found === remembered.position ? remembered : { ...remembered, position: found };
  if (item.optional) return { keep: at, how: 'optional' };
  if (!item.done) return { keep: item.text === at.text ? at : { ...at, text: ownCopy(item.text) } };
  if (!backed(remembered)) return { keep: at, how: 'ticked without measured change' };
  return { completed: true };
}

/** A remembered item for the plan's `item` at `position`, whose normalised text is `key`. */
export function rememberItem(item: PlanItem, key: string, position: number): RememberedItem {
  return { key: ownCopy(key), text: ownCopy(item.text), position };
}

/**
 * `text` in memory of its own. A slice of a long string may point into it (V8's sliced strings):
 * an item's text read from a plan's text keeps that whole text alive, and a remembered item
 * lives the whole run, so each one made from a new reading would keep a plan's worth of memory.
 * Copied through UTF-16, which keeps every code unit as it was.
 */
export function ownCopy(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}
