// A plan read again after a change to a few of its lines (an item ticked, reworded) is not
// parsed whole again: the lines that differ from the last reading are found from the common
// start and end of the two texts, and only they are read; every other item is the same object as
// before, with the same normalised text. Taken only when the change can reach no other line: the
// same number of lines, and no changed line (before or after) that is, or could be, a heading or
// a fence, the only lines that decide how later lines read. Anything else is parsed whole. Pure.

import type { ItemsChange } from './plan-check-delta.js';
import { ownCopy } from './remembered-item.js';
import { countItem, mayShapePlan, readItemLine, type PlanItem, type PlanLines, type PlanSection, type PlanView } from './fix-plan.js';

/** One parse of the plan: its text, what it made of it, each item's normalised text, and its lines. */
export interface ParsedPlan {
  readonly text: string;
  readonly view: PlanView;
  readonly keys: readonly string[];
  readonly lines: PlanLines;
  /** How the items differ from the parse this one reused, when they changed in place. */
  readonly change?: ItemsChange;
}

/** The lines of `last` that `text` changed: [first, end) by index, and the new lines' text. */
interface ChangedLines {
  first: number;
  end: number;
  before: string[];
  after: string[];
}

/**
 * `text` parsed by reusing `last` (parsed with the same optional sections) for every line it did
 * not change; undefined when the change may reach other lines (the caller parses it whole).
 * `keyOf`: an item's normalised text.
 */
export function reparseFixPlan(last: ParsedPlan, text: string, keyOf: (text: string) => string): ParsedPlan | undefined {
  const changed = changedLines(last, text);
  if (!changed || changed.before.length !== changed.after.length) return undefined;
  if (changed.before.some(mayShapePlan) || changed.after.some(mayShapePlan)) return undefined;
  const { first, end, before, after } = changed;
  const { view, keys, lines } = last;
  const starts = shiftedStarts(lines.starts, first, before, after, text.length - last.text.length);
  if (!starts) return undefined;
  const i0 = firstItemFrom(view.items, first + 1);
  const i1 = firstItemFrom(view.items, end + 1);
  const items: PlanItem[] = [];
  const itemKeys: string[] = [];
  let old = i0;
  for (let k = first; k < end; k++) {
    const was = old < i1 && view.items[old]!.line === k + 1 ? old++ : -1;
    if (lines.fenced[k] === 1) continue;
    // A line the change left as it was keeps its item.
    if (was >= 0 && before[k - first] === after[k - first]) {
      items.push(view.items[was]!);
      itemKeys.push(keys[was]!);
      continue;
    }
    const section = sectionAt(view.sections, k + 1);
    const item = readItemLine(after[k - first]!, k + 1, section?.title ?? null, (section?.optional ?? false) && lines.fenced[k] !== 2);
    if (!item) continue;
    items.push(item);
    itemKeys.push(keyOf(item.text));
  }
  return {
    text,
    view: spliceView(view, i0, i1, items),
    keys: keys.slice(0, i0).concat(itemKeys, keys.slice(i1)),
    lines: { starts, fenced: lines.fenced },
    ...(i1 - i0 === items.length ? { change: { was: view.items, start: i0, end: i1 } } : {}),
  };
}

/** The view with its items [i0, i1) replaced by `items`, counts and open items kept true. */
function spliceView(view: PlanView, i0: number, i1: number, items: PlanItem[]): PlanView {
  const next: PlanView = {
    ...view,
    blocking: { ...view.blocking },
    optional: { ...view.optional },
    items: view.items.slice(0, i0).concat(items, view.items.slice(i1)),
  };
  const isOpen = (item: PlanItem) => !item.done && !item.optional;
  let openBefore = 0;
  for (let i = 0; i < i0; i++) if (isOpen(view.items[i]!)) openBefore++;
  let openRemoved = 0;
  for (let i = i0; i < i1; i++) {
    countItem(next, view.items[i]!, -1);
    if (isOpen(view.items[i]!)) openRemoved++;
  }
  for (const item of items) countItem(next, item, 1);
  const opened = items.filter(isOpen).map((item) => item.text);
  next.openItems = view.openItems.slice(0, openBefore).concat(opened, view.openItems.slice(openBefore + openRemoved));
  return next;
}

/** The lines of the last text that differ in `text`, whole lines; undefined when a line ending may have changed. */
function changedLines(last: ParsedPlan, text: string): ChangedLines | undefined {
  const before = last.text;
  const prefix = commonPrefix(before, text);
  const suffix = commonSuffix(before, text, Math.min(before.length, text.length) - prefix);
  const { starts } = last.lines;
  const first = lineOf(starts, prefix);
  // Through the line holding the first unchanged character after the change: its end is unchanged.
  const end = lineOf(starts, before.length - suffix) + 1;
  let to = Math.min(starts[end]! - 1, before.length);
  if (to < before.length && before.charCodeAt(to - 1) === 13) to--;
  if (to < before.length - suffix) return undefined;
  const from = starts[first]!;
  const was = before.slice(from, to);
  // A copy of its own: the items read from it outlive this text, which a slice would keep whole.
  const now = ownCopy(text.slice(from, to + text.length - before.length));
  // Lines ending in `\r\n` inside the change: their offsets are not worked out here.
  if (was.includes('\r') || now.includes('\r')) return undefined;
  return { first, end, before: was.split('\n'), after: now.split('\n') };
}

/** The index of the line holding offset `at` (the last line for the text's end). */
function lineOf(starts: Uint32Array, at: number): number {
  let lo = 0;
  let hi = starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function firstItemFrom(items: readonly PlanItem[], line: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]!.line < line) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The last heading above line `line` (1-based). */
function sectionAt(sections: readonly PlanSection[], line: number): PlanSection | undefined {
  let lo = 0;
  let hi = sections.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sections[mid]!.line < line) lo = mid + 1;
    else hi = mid;
  }
  return sections[lo - 1];
}

/**
 * The line offsets after the lines from `first` changed from `before` to `after`; undefined when
 * the lengths do not add up to `delta`, the change of the text's length (a line ending changed).
 */
function shiftedStarts(starts: Uint32Array, first: number, before: readonly string[], after: readonly string[], delta: number): Uint32Array | undefined {
  let shift = 0;
  let next: Uint32Array | undefined;
  for (let j = 0; j < after.length; j++) {
    if (shift !== 0) (next ??= starts.slice())[first + j] = starts[first + j]! + shift;
    shift += after[j]!.length - before[j]!.length;
  }
  if (shift !== delta) return undefined;
  if (shift === 0) return next ?? starts;
  next ??= starts.slice();
  for (let k = first + after.length; k < next.length; k++) next[k] = starts[k]! + shift;
  return next;
}

/**
 * The length of the longest common start, found by halving; each test compares two slices with
 * `===` (a native comparison: `startsWith` here walks the text far slower).
 */
function commonPrefix(a: string, b: string): number {
  let lo = 0;
  let hi = Math.min(a.length, b.length);
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (a.slice(0, mid) === b.slice(0, mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The length of the longest common end, at most `max`. */
function commonSuffix(a: string, b: string, max: number): number {
  let lo = 0;
  let hi = max;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (a.slice(a.length - mid) === b.slice(b.length - mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
