// Property test of the plan's memory: its matching through an index of normalised texts
// (lib/plan/plan-item-index.ts, O(n) per loop) decides exactly what the quadratic matching it
// replaced decided (kept here as the oracle): which remembered item is which item of the plan,
// what is hidden and how, what is done, over generated plans with repeated items, notes after
// ticked items, case and invisible-character variants, optional sections and moved lines.
// fast-check prints the seed of a failing case to replay it.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFixPlan, type PlanItem } from '../../lib/plan/fix-plan.js';
import { shareTopic } from '../../lib/plan/item-evidence.js';
import {
  checkPlanAgainstMemory,
  emptyPlanMemory,
  normalizeItemText,
  type HiddenItem,
  type PlanMemory,
  type RememberedItem,
} from '../../lib/plan/plan-memory.js';

const RUNS = 500;
const OPTIONAL = ['Optional'];

/**
 * The matching as it was before the index: every item normalised again for each remembered one.
 * The rest (an item split into open items about the same thing is carried by them) as the plan's
 * memory decides it.
 */
function oracle(memory: PlanMemory, items: PlanItem[], newContent: boolean): { open: RememberedItem[]; hidden: HiddenItem[]; completed: number } {
  const used = new Set<number>();
  const open: RememberedItem[] = [];
  const hidden: HiddenItem[] = [];
  let completed = 0;
  const known = new Set(memory.open.map((item) => item.key));
  const added = items.filter((item) => !item.done && !item.optional && !known.has(normalizeItemText(item.text))).map((item) => normalizeItemText(item.text));
  for (const remembered of memory.open) {
    let best: number | undefined;
    items.forEach((item, index) => {
      if (used.has(index)) return;
      const key = normalizeItemText(item.text);
      const same = key === remembered.key || (item.done && remembered.key !== '' && key.startsWith(remembered.key));
      if (!same) return;
      if (best === undefined || Math.abs(index - remembered.position) < Math.abs(best - remembered.position)) best = index;
    });
    if (best === undefined) {
      if (added.some((key) => shareTopic(remembered.key, key))) continue;
      open.push(remembered);
      hidden.push({ key: remembered.key, text: remembered.text, how: 'removed' });
      continue;
    }
    used.add(best);
    const item = items[best]!;
    const at = { ...remembered, position: best };
    if (item.optional) {
      open.push(at);
      hidden.push({ key: remembered.key, text: remembered.text, how: 'optional' });
    } else if (!item.done) open.push({ ...at, text: item.text });
    else if (!newContent) {
      open.push(at);
      hidden.push({ key: remembered.key, text: remembered.text, how: 'ticked without measured change' });
    } else completed++;
  }
  items.forEach((item, index) => {
    if (used.has(index) || item.done || item.optional) return;
    open.push({ key: normalizeItemText(item.text), text: item.text, position: index });
  });
  return { open, hidden, completed };
}

// A small vocabulary, so items repeat, prefix one another and meet again in later plans.
const base = fc.constantFrom(
  'write the parser',
  'write the',
  'Write The Parser',
  'write the printer',
  'a',
  'ab',
  'b',
  'fix **bug** 1',
  'fix bug 1',
  'w\u200brite the parser',
);
const text = fc.tuple(base, fc.constantFrom('', '', ' (done in src/a.ts)', ' x', 'er', '  ')).map(([t, note]) => `${t}${note}`);
const line = fc.oneof(
  fc.tuple(fc.constantFrom('- [ ] ', '- [x] ', '* [X] ', '1. [ ] '), text).map(([mark, t]) => `${mark}${t}`),
  fc.constantFrom('## Optional', '## Core', 'prose'),
);
const plan = fc.array(line, { maxLength: 14 }).map((lines) => `# Plan\n${lines.join('\n')}\n`);

describe('the plan memory matching through an index of normalised texts', () => {
  it('decides what the quadratic matching decided, loop after loop', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(plan, fc.boolean()), { minLength: 1, maxLength: 4 }), (reads) => {
        let memory = emptyPlanMemory();
        for (const [planText, newContent] of reads) {
          const view = parseFixPlan(planText, OPTIONAL);
          const expected = oracle(memory, view.items, newContent);
          const checked = checkPlanAgainstMemory(memory, { view }, newContent);
          expect(checked.memory.open).toEqual(expected.open);
          expect(checked.hidden).toEqual(expected.hidden);
          expect(checked.completed).toBe(expected.completed);
          memory = checked.memory;
        }
      }),
      { numRuns: RUNS },
    );
  });
});
