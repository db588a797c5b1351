// The check of the plan against its memory looks only at the items that changed since the last
// check and the items held open, once every remembered item stands where it was found: the same
// result as the whole check (memory, held items and how, completed items, view) over any run of
// edits, with the guards' behaviour kept (held open, removed, unticked, optional, verification).

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseFixPlanLines } from '../../../lib/plan/fix-plan.js';
import { reparseFixPlan, type ParsedPlan } from '../../../lib/plan/plan-reparse.js';
import {
  checkPlanAgainstMemory,
  emptyPlanMemory,
  itemKeys,
  normalizeItemText,
  type LoopEvidence,
  type PlanMemory,
  type PlanRead,
} from '../../../lib/plan/plan-memory.js';
import { deltaItemsLooked } from '../../../lib/plan/plan-check-delta.js';

const OPTIONAL = ['Nice to have'];

function whole(text: string): ParsedPlan {
  const { view, lines } = parseFixPlanLines(text, OPTIONAL);
  return { text, view, keys: itemKeys(view.items), lines };
}

/** The plan read again as a run reads it: the last parse reused where it can be. */
function readAgain(last: ParsedPlan, text: string): ParsedPlan {
  return reparseFixPlan(last, text, normalizeItemText) ?? whole(text);
}

const asRead = (parsed: ParsedPlan): PlanRead => ({ view: parsed.view, keys: parsed.keys, ...(parsed.change ? { change: parsed.change } : {}) });

/** Checks `memory` as the run does, and as a whole check of a copy (no earlier check behind it) does: both must agree. */
function checkBoth(memory: PlanMemory, parsed: ParsedPlan, evidence: LoopEvidence) {
  const checked = checkPlanAgainstMemory(memory, asRead(parsed), evidence);
  const expected = checkPlanAgainstMemory({ open: [...memory.open] }, { view: parsed.view, keys: parsed.keys }, evidence);
  expect(checked.memory.open).toEqual(expected.memory.open);
  expect(checked.hidden).toEqual(expected.hidden);
  expect(checked.completedKeys).toEqual(expected.completedKeys);
  expect(checked.view).toEqual(expected.view);
  return checked;
}

describe('checkPlanAgainstMemory after a change in place: the same result as the whole check', () => {
  it('over 400 random edits: ticks, unticks, rewordings, items made and unmade, with and without new content', () => {
    const lines = [
      '# Plan',
      ...Array.from({ length: 12 }, (_, i) => `- [ ] write part ${i} of the parser`),
      '## Nice to have',
      '- [ ] colours',
      '- [ ] verify the docs',
    ];
    let seed = 11;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    let parsed = whole(lines.join('\n'));
    let memory = emptyPlanMemory();
    const looked = deltaItemsLooked();
    for (let step = 0; step < 400; step++) {
      const at = 1 + random(lines.length - 1);
      if (!lines[at]!.startsWith('#')) {
        const edits = [
          (line: string) => line.replace('[ ]', '[x]'),
          (line: string) => line.replace('[x]', '[ ]'),
          (line: string) => `${line} (done)`,
          (line: string) => line.replace(/ \(done\)$/, ''),
          () => `- [ ] write part ${random(20)} of the parser`,
          () => 'a note, not an item',
        ];
        lines[at] = edits[random(edits.length)]!(lines[at]!);
      }
      parsed = readAgain(parsed, lines.join('\n'));
      const newContent = random(3) > 0;
      memory = checkBoth(memory, parsed, { newContent, changed: newContent || random(2) === 0 }).memory;
      // A second look in the same loop, on the same reading: the gate's.
      memory = checkBoth(memory, parsed, { newContent: false, changed: false }).memory;
    }
    // Most checks went by the changed items (the others by the whole plan).
    expect(deltaItemsLooked() - looked).toBeGreaterThan(200);
  });

  it('an item ticked each loop of a 10,000-item plan: one item looked at a loop, not 10,000', () => {
    const open = Array.from({ length: 10_000 }, (_, i) => `- [ ] item ${i}: make part ${i} work`);
    let parsed = whole(`# Plan\n${open.join('\n')}\n`);
    let memory = checkPlanAgainstMemory(emptyPlanMemory(), asRead(parsed), false).memory;
    const before = deltaItemsLooked();
    for (let i = 0; i < 100; i++) {
      open[i] = open[i]!.replace('[ ]', '[x]');
      parsed = readAgain(parsed, `# Plan\n${open.join('\n')}\n`);
      const checked = checkPlanAgainstMemory(memory, asRead(parsed), { newContent: true, changed: true });
      expect(checked.completedKeys).toEqual([normalizeItemText(`item ${i}: make part ${i} work`)]);
      memory = checked.memory;
      memory = checkPlanAgainstMemory(memory, asRead(parsed), { newContent: false, changed: false }).memory;
    }
    expect(memory.open).toHaveLength(9_900);
    expect(deltaItemsLooked() - before).toBe(100);
  });

  it('an item ticked with no measured content is held open and looked at each check until a loop backs it', () => {
    const text = '# Plan\n- [ ] write the parser\n- [ ] write the printer\n';
    let parsed = whole(text);
    let memory = checkPlanAgainstMemory(emptyPlanMemory(), asRead(parsed), false).memory;
    parsed = readAgain(parsed, text.replace('[ ] write the parser', '[x] write the parser'));
    const held = checkBoth(memory, parsed, { newContent: false, changed: false });
    expect(held.hidden).toEqual([{ key: 'write the parser', text: 'write the parser', how: 'ticked without measured change' }]);
    memory = held.memory;
    const before = deltaItemsLooked();
    expect(checkBoth(memory, parsed, { newContent: false, changed: false }).hidden).toHaveLength(1);
    const backed = checkBoth(memory, parsed, { newContent: true, changed: true });
    expect(deltaItemsLooked() - before).toBe(2);
    expect(backed.completedKeys).toEqual(['write the parser']);
    expect(backed.memory.open.map((item) => item.key)).toEqual(['write the printer']);
  });
});

describe('checkPlanAgainstMemory: what the memory keeps alive', () => {
  it("an item remembered from a reading does not keep that reading's whole text alive", () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // 2,000 items of ~500 bytes: each reading's text is about 1 MB; the agent adds an item each loop.
    const open = Array.from({ length: 2000 }, (_, i) => `- [ ] item ${i}: ${'make the part work '.repeat(25)}`);
    let memory = checkPlanAgainstMemory(emptyPlanMemory(), asRead(whole(open.join('\n'))), false).memory;
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 40; i++) {
      open.push(`- [ ] added item ${i}: ${'make the new part work '.repeat(20)}`);
      memory = checkPlanAgainstMemory(memory, asRead(whole(open.join('\n'))), false).memory;
    }
    gc();
    // Forty texts of 1 MB would stay alive through the items remembered from them.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(10_000_000);
    expect(memory.open).toHaveLength(2040);
  });
});
