// The plan's memory: hidden open items still count, ticks without measured new content do not,
// an unreadable plan is open, honest edits (a note after a ticked item, moved lines) are fine.

import { describe, expect, it } from 'vitest';
import { parseFixPlan } from '../../../lib/plan/fix-plan.js';
import { checkPlanAgainstMemory, emptyPlanMemory, itemKeys, normalizeItemText, type PlanMemory, type PlanRead } from '../../../lib/plan/plan-memory.js';

const OPTIONAL = ['Optional'];
const read = (text: string) => ({ view: parseFixPlan(text, OPTIONAL) });
const START = '# Plan\n- [ ] alpha\n- [ ] beta\n';

function remember(text: string): PlanMemory {
  return checkPlanAgainstMemory(emptyPlanMemory(), read(text), false).memory;
}

describe('checkPlanAgainstMemory', () => {
  it('remembers the open items at the start and counts nothing hidden', () => {
    const first = checkPlanAgainstMemory(emptyPlanMemory(), read(START), false);
    expect(first.memory.open.map((i) => i.text)).toEqual(['alpha', 'beta']);
    expect(first.hidden).toEqual([]);
    expect(first.view?.blocking.open).toBe(2);
  });

  it.each([
    ['deleted', '# Plan\n', 'removed'],
    ['fenced', '# Plan\n```\n- [ ] alpha\n- [ ] beta\n```\n', 'removed'],
    ['quoted', '# Plan\n> - [ ] alpha\n> - [ ] beta\n', 'removed'],
    ['zero-width', '# Plan\n- [\u200b] alpha\n- [\u200b] beta\n', 'removed'],
    ['optional', '# Plan\n## Optional\n- [ ] alpha\n- [ ] beta\n', 'optional'],
  ])('%s open items still count as open', (_name, text, how) => {
    const checked = checkPlanAgainstMemory(remember(START), read(text), true);
    expect(checked.hidden.map((h) => [h.text, h.how])).toEqual([
      ['alpha', how],
      ['beta', how],
    ]);
    expect(checked.view?.blocking.open).toBe(2);
  });

  it('a tick without measured new content is not done; a later loop with new content makes it done', () => {
    const ticked = '# Plan\n- [x] alpha\n- [ ] beta\n';
    const unearned = checkPlanAgainstMemory(remember(START), read(ticked), false);
    expect(unearned.view?.blocking).toEqual({ open: 2, done: 0 });
    expect(unearned.completed).toBe(0);
    const earned = checkPlanAgainstMemory(unearned.memory, read(ticked), true);
    expect(earned.view?.blocking).toEqual({ open: 1, done: 1 });
    expect(earned.completed).toBe(1);
  });

  it('a note after a ticked item and a moved line are honest edits', () => {
    const checked = checkPlanAgainstMemory(remember(START), read('# Plan\n- [ ] beta\n## Done\n- [x] Alpha (in src/a.ts)\n'), true);
    expect(checked.hidden).toEqual([]);
    expect(checked.view?.blocking).toEqual({ open: 1, done: 1 });
  });

  it('an unreadable plan keeps every remembered item open and adds itself', () => {
    const checked = checkPlanAgainstMemory(remember(START), { unreadable: 'is larger than 10 MB' }, true);
    expect(checked.view?.blocking.open).toBe(3);
    expect(checked.view?.openItems.at(-1)).toContain('is larger than 10 MB');
  });

  it('normalizes invisible characters, formatting and case', () => {
    expect(normalizeItemText('  Write\u200b the  **Parser** ')).toBe('write the parser');
  });
});

describe('checkPlanAgainstMemory: the evidence an item asks for', () => {
  const noNewContent = (changed: boolean, controlFiles: string[] = []) => ({ newContent: false, changed, controlFiles });

  it('a revert item ticked in a loop that changed the content back to an earlier state is done; other items are not', () => {
    const plan = '# Plan\n- [ ] Add the cache\n- [ ] Revert the cache commit\n';
    const ticked = checkPlanAgainstMemory(remember(plan), read('# Plan\n- [x] Add the cache\n- [x] Revert the cache commit\n'), noNewContent(true));
    expect(ticked.completed).toBe(1);
    expect(ticked.hidden.map((h) => h.text)).toEqual(['Add the cache']);
    // With nothing changed, a revert item is not done either.
    expect(checkPlanAgainstMemory(remember(plan), read('# Plan\n- [ ] Add the cache\n- [x] Revert the cache commit\n'), noNewContent(false)).completed).toBe(0);
  });

  it('an item naming AGENT.md is done when the loop changed AGENT.md; a change to AGENT.md backs no other item', () => {
    const plan = '# Plan\n- [ ] Record the build commands in .ralph/AGENT.md\n- [ ] Write the parser\n';
    const all = '# Plan\n- [x] Record the build commands in .ralph/AGENT.md\n- [x] Write the parser\n';
    const checked = checkPlanAgainstMemory(remember(plan), read(all), noNewContent(false, ['AGENT.md']));
    expect(checked.completed).toBe(1);
    expect(checked.hidden.map((h) => h.text)).toEqual(['Write the parser']);
    expect(checkPlanAgainstMemory(remember(plan), read(all), noNewContent(false, ['fix_plan.md'])).completed).toBe(0);
  });

  it('an item split into open items about the same thing is carried by them, not hidden', () => {
    const split = checkPlanAgainstMemory(
      remember('# Plan\n- [ ] Add user import (CSV and JSON)\n'),
      read('# Plan\n- [ ] Add user import: the CSV reader\n- [ ] Add user import: the JSON reader\n'),
      false,
    );
    expect(split.hidden).toEqual([]);
    expect(split.memory.open.map((i) => i.text)).toEqual(['Add user import: the CSV reader', 'Add user import: the JSON reader']);
  });

  it('an item replaced by items about something else, or by ticked ones, still counts as removed', () => {
    const start = remember('# Plan\n- [ ] Add user import (CSV and JSON)\n');
    expect(checkPlanAgainstMemory(start, read('# Plan\n- [ ] Polish the README\n'), false).hidden).toEqual([
      { key: 'add user import (csv and json)', text: 'Add user import (CSV and JSON)', how: 'removed' },
    ]);
    expect(checkPlanAgainstMemory(start, read('# Plan\n- [x] user import done\n'), false).hidden).toEqual([
      { key: 'add user import (csv and json)', text: 'Add user import (CSV and JSON)', how: 'removed' },
    ]);
  });
});

describe("checkPlanAgainstMemory: only the user's items ask for evidence other than new content", () => {
  it('a revert item the agent added is not done on a change back to an earlier state', () => {
    const memory = remember('# Plan\n- [ ] Revert the cache commit\n');
    const userOnly = (key: string) => key !== normalizeItemText('Revert the cache commit');
    const checked = checkPlanAgainstMemory(memory, read('# Plan\n- [x] Revert the cache commit\n'), {
      newContent: false,
      changed: true,
      asksWithAuthority: userOnly,
    });
    expect(checked.completed).toBe(0);
    expect(checked.hidden.map((h) => h.how)).toEqual(['ticked without measured change']);
  });
});

describe('checkPlanAgainstMemory: a reading checked again', () => {
  /** One reading of `text` whose items count each look at whether they are done. */
  function countedReading(text: string): { read: PlanRead; looks: () => number } {
    let looks = 0;
    const view = parseFixPlan(text, OPTIONAL);
    const items = view.items.map((item) => {
      const { done, ...rest } = item;
      return {
        ...rest,
        get done() {
          looks++;
          return done;
        },
      };
    });
    return { read: { view: { ...view, items }, keys: itemKeys(items) }, looks: () => looks };
  }

  it('with an item hidden, the index of texts and the new open items are worked out once per reading', () => {
    const items = Array.from({ length: 200 }, (_, i) => `write part ${i}`);
    const memory = remember(`# Plan\n${items.map((text) => `- [ ] ${text}\n`).join('')}`);
    // The agent deleted one item and ticked another with a note: both held open, every loop.
    const plan = `# Plan\n${items
      .filter((_, i) => i !== 7)
      .map((text, i) => (i === 3 ? `- [x] ${text} (done)\n` : `- [ ] ${text}\n`))
      .join('')}`;
    const { read: reading, looks } = countedReading(plan);
    const first = checkPlanAgainstMemory(memory, reading, false);
    expect(first.hidden.map((h) => [h.text, h.how])).toEqual([
      ['write part 3', 'ticked without measured change'],
      ['write part 7', 'removed'],
    ]);
    // From the next loop on the memory is the same: each loop checks it against the same reading.
    const settled = checkPlanAgainstMemory(first.memory, reading, false);
    expect(settled.memory).toBe(first.memory);
    const before = looks();
    const again = checkPlanAgainstMemory(settled.memory, reading, false);
    expect(again.hidden).toEqual(first.hidden);
    expect(again.memory).toBe(settled.memory);
    // Each item is looked at once at most: the index and the new items are not made again.
    expect(looks() - before).toBeLessThanOrEqual(items.length);
  });
});
