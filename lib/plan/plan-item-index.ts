// The items of one reading of the plan, indexed by their normalised texts (computed once per
// reading by the caller): a remembered item is found through a map (the same text) and a sorted
// list of the done items' texts (a done item may carry a note after the text), not by
// normalising every item of the plan again for each remembered one. The map and the list depend
// on the reading alone: a reading checked again (the plan read again with the same text) finds
// them made. Pure.

import type { PlanItem } from './fix-plan.js';

interface DoneKey {
  key: string;
  index: number;
}

interface Lookup {
  byKey: Map<string, number[]>;
  doneKeys: DoneKey[];
}

/** The lookup made for a reading's items, with the keys it was made from. */
const lookups = new WeakMap<readonly PlanItem[], { keys: readonly string[]; lookup: Lookup }>();

export class PlanItemIndex {
  /** Each item's normalised text, by its index among the plan's items. */
  readonly keys: readonly string[];
  /** 1 at each index a remembered item took. */
  private readonly used: Uint8Array;
  /** Built at the first remembered item not found where it was (most loops find every one there). */
  private lookup?: Lookup;

  /** `keys`: each item's normalised text, in the same order. */
  constructor(
    private readonly items: readonly PlanItem[],
    keys: readonly string[],
  ) {
    this.keys = keys;
    this.used = new Uint8Array(items.length);
  }

  /**
   * Takes the item a remembered one is, if any is left: the same text, or a done item whose text
   * starts with it; of several, the nearest `position`, the first on a tie. A taken item is not
   * given again.
   */
  take(key: string, position: number): number | undefined {
    // Still where it was: nothing can be nearer.
    if (this.keys[position] === key && this.used[position] === 0) {
      this.used[position] = 1;
      return position;
    }
    const { byKey, doneKeys } = this.buildLookup();
    let best: number | undefined;
    const consider = (index: number) => {
      if (this.used[index] === 1) return;
      const distance = Math.abs(index - position);
      const bestDistance = best === undefined ? Infinity : Math.abs(best - position);
      if (distance < bestDistance || (distance === bestDistance && index < best!)) best = index;
    };
    for (const index of nearestFirst(byKey.get(key) ?? [], position)) {
      const before = best;
      consider(index);
      // Ordered by distance: the first one free is the nearest of them.
      if (best !== before) break;
    }
    if (key !== '') {
      for (let at = lowerBound(doneKeys, key); at < doneKeys.length && doneKeys[at]!.key.startsWith(key); at++) {
        consider(doneKeys[at]!.index);
      }
    }
    if (best !== undefined) this.used[best] = 1;
    return best;
  }

  private buildLookup(): Lookup {
    if (this.lookup) return this.lookup;
    const made = lookups.get(this.items);
    if (made?.keys === this.keys) return (this.lookup = made.lookup);
    const byKey = new Map<string, number[]>();
    this.keys.forEach((key, index) => {
      const same = byKey.get(key);
      if (same) same.push(index);
      else byKey.set(key, [index]);
    });
    const doneKeys = this.items.flatMap((item, index) => (item.done ? [{ key: this.keys[index]!, index }] : []));
    doneKeys.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index));
    this.lookup = { byKey, doneKeys };
    lookups.set(this.items, { keys: this.keys, lookup: this.lookup });
    return this.lookup;
  }

  /** Whether the item at `index` was taken by a remembered one. */
  isTaken(index: number): boolean {
    return this.used[index] === 1;
  }
}

/** Ascending indices visited nearest `position` first, the lower one first on a tie. */
function* nearestFirst(indices: readonly number[], position: number): Generator<number> {
  let right = firstAtLeast(indices, position);
  let left = right - 1;
  while (left >= 0 || right < indices.length) {
    const l = left >= 0 ? indices[left]! : undefined;
    const r = right < indices.length ? indices[right]! : undefined;
    if (r === undefined || (l !== undefined && position - l <= r - position)) {
      yield l!;
      left--;
    } else {
      yield r;
      right++;
    }
  }
}

function firstAtLeast(indices: readonly number[], value: number): number {
  let lo = 0;
  let hi = indices.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (indices[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function lowerBound(sorted: readonly DoneKey[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]!.key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
