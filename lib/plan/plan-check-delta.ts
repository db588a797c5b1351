// The check of the plan against its memory, for what changed only. After a check in which every
// remembered item was found where it was last seen (none removed, none moved), ralph keeps, for
// the memory it produced, which remembered item stands at each index of the plan and which of
// them are held open (ticked without measured change, or optional). The next check of that memory
// against the same reading, or a reading that changed some items in place (an item ticked:
// plan-reparse.ts), then looks only at the changed items and the held ones — the loop's evidence
// may close a held item — and every other remembered item stays as it was, the same object. It
// gives what the whole check gives, or nothing when it cannot tell (a changed item's text is no
// longer its remembered one, a memory it did not produce): then the whole check runs. Pure.

import type { PlanItem } from './fix-plan.js';
import { judgeItem, rememberItem, type HiddenItem, type PlanMemory, type RememberedItem } from './remembered-item.js';

/** A reading that differs from the reading of `was` in the items [start, end) only, as many as before, each at its index. */
export interface ItemsChange {
  readonly was: readonly PlanItem[];
  readonly start: number;
  readonly end: number;
}

/** What the check needs of a reading: its items, their normalised texts, and how it differs from the last one. */
export interface CheckedReading {
  readonly items: readonly PlanItem[];
  readonly keys: readonly string[];
  readonly change?: ItemsChange;
}

export interface DeltaCheck {
  memory: PlanMemory;
  hidden: HiddenItem[];
  completedKeys: string[];
  /** When the check knows it: how `memory` differs from the memory checked. */
  change?: MemoryChange;
}

/** How a memory differs from the one before: the indices dropped, the texts changed (by index), the items added last. */
export interface MemoryChange {
  drop: number[];
  set: Array<[number, string]>;
  add: RememberedItem[];
}

/** For a memory a check produced: the reading's items, the remembered item at each index, the indices held open. */
interface Settled {
  items: readonly PlanItem[];
  byIndex: (RememberedItem | undefined)[];
  held: Set<number>;
}

const settled = new WeakMap<readonly RememberedItem[], Settled>();

/** How many remembered items the checks of changed items have looked at (a test counts the work a tick costs). */
let looked = 0;
export function deltaItemsLooked(): number {
  return looked;
}

/** The check of `memory` against `reading` looking at changed and held items only; undefined when it cannot tell. */
export function checkChangedItems(memory: PlanMemory, reading: CheckedReading, backed: (item: RememberedItem) => boolean): DeltaCheck | undefined {
  const state = settled.get(memory.open);
  if (!state) return undefined;
  const range = state.items === reading.items ? { start: 0, end: 0 } : reading.change?.was === state.items ? reading.change : undefined;
  if (!range) return undefined;
  for (let index = range.start; index < range.end; index++) {
    const remembered = state.byIndex[index];
    if (remembered && reading.keys[index] !== remembered.key) return undefined;
  }
  const indices = new Set(state.held);
  for (let index = range.start; index < range.end; index++) indices.add(index);
  return applyVerdicts(memory, reading, state, [...indices], backed);
}

function applyVerdicts(memory: PlanMemory, reading: CheckedReading, state: Settled, indices: number[], backed: (item: RememberedItem) => boolean): DeltaCheck {
  const judged: Array<{ order: number; remembered: RememberedItem; index: number }> = [];
  const added: RememberedItem[] = [];
  for (const index of indices.sort((a, b) => a - b)) {
    looked++;
    const remembered = state.byIndex[index];
    const item = reading.items[index]!;
    if (remembered) judged.push({ order: memory.open.indexOf(remembered), remembered, index });
    else if (!item.done && !item.optional) added.push(rememberItem(item, reading.keys[index]!, index));
  }
  judged.sort((a, b) => a.order - b.order);
  const hidden: HiddenItem[] = [];
  const completedKeys: string[] = [];
  const replaced = new Map<number, RememberedItem | undefined>();
  const held = new Set(state.held);
  for (const { order, remembered, index } of judged) {
    const verdict = judgeItem(remembered, reading.items[index]!, index, backed);
    held.delete(index);
    if ('completed' in verdict) {
      completedKeys.push(remembered.key);
      replaced.set(order, undefined);
      continue;
    }
    if (verdict.how) {
      hidden.push({ key: remembered.key, text: remembered.text, how: verdict.how });
      held.add(index);
    }
    if (verdict.keep !== remembered) replaced.set(order, verdict.keep);
  }
  const next = replaced.size === 0 && added.length === 0 ? memory : { open: withReplaced(memory.open, replaced, added) };
  const byIndex = state.byIndex;
  for (const { order, index } of judged) if (replaced.has(order)) byIndex[index] = replaced.get(order);
  for (const item of added) byIndex[item.position] = item;
  settled.delete(memory.open);
  settled.set(next.open, { items: reading.items, byIndex, held });
  return { memory: next, hidden, completedKeys, change: changeOf(replaced, added) };
}

function changeOf(replaced: Map<number, RememberedItem | undefined>, added: RememberedItem[]): MemoryChange {
  const change: MemoryChange = { drop: [], set: [], add: added };
  for (const [order, item] of replaced) {
    if (item) change.set.push([order, item.text]);
    else change.drop.push(order);
  }
  return change;
}

/** `open` with the items at the orders in `replaced` replaced (undefined: taken out), and `added` last. */
function withReplaced(open: readonly RememberedItem[], replaced: Map<number, RememberedItem | undefined>, added: readonly RememberedItem[]): RememberedItem[] {
  const next = open.slice();
  for (const [order, item] of replaced) if (item) next[order] = item;
  const out = [...replaced].filter(([, item]) => !item).map(([order]) => order);
  for (const order of out.sort((a, b) => b - a)) next.splice(order, 1);
  next.push(...added);
  return next;
}

/**
 * Remembers, for `memory` as a whole check made it against `reading`, where each remembered item
 * stands, when every one stands where it was found (none removed, none sharing an index).
 */
export function settle(memory: PlanMemory, reading: CheckedReading): void {
  const byIndex: (RememberedItem | undefined)[] = new Array<RememberedItem | undefined>(reading.items.length);
  const held = new Set<number>();
  for (const remembered of memory.open) {
    const index = remembered.position;
    const item = reading.items[index];
    if (!item || reading.keys[index] !== remembered.key || byIndex[index]) return;
    byIndex[index] = remembered;
    if (item.done || item.optional) held.add(index);
  }
  settled.set(memory.open, { items: reading.items, byIndex, held });
}
