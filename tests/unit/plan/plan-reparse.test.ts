// A plan read again after a change to some of its lines reuses the last parse for the lines that
// did not change: the same result as parsing it whole (view, keys, line offsets), with every
// untouched item the same object, and a whole parse only where a change can reach other lines.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFixPlanLines } from '../../../lib/plan/fix-plan.js';
import { reparseFixPlan, type ParsedPlan } from '../../../lib/plan/plan-reparse.js';
import { itemKeys, normalizeItemText } from '../../../lib/plan/plan-memory.js';
import { readPlanAgain, wholeParseCount } from '../../../lib/plan/plan-store.js';
import { ralphPaths } from '../../../lib/state/paths.js';

const OPTIONAL = ['Nice to have'];

function whole(text: string): ParsedPlan {
  const { view, lines } = parseFixPlanLines(text, OPTIONAL);
  return { text, view, keys: itemKeys(view.items), lines };
}

/** The reparse of `next` from `last`, checked against parsing it whole; undefined when it parsed nothing. */
function reparsed(last: ParsedPlan, next: string): ParsedPlan | undefined {
  const again = reparseFixPlan(last, next, normalizeItemText);
  const expected = whole(next);
  if (again) {
    expect(again.view).toEqual(expected.view);
    expect(again.keys).toEqual(expected.keys);
    expect([...again.lines.starts]).toEqual([...expected.lines.starts]);
    expect([...again.lines.fenced]).toEqual([...expected.lines.fenced]);
  }
  return again;
}

const PLAN = [
  '# Plan',
  '- [ ] write the parser',
  '  * [x] set up the repo',
  'some prose between items',
  '- [ ] write the printer',
  '```md',
  '- [ ] an example, not an item',
  '```',
  '## Nice to have',
  '- [ ] colours',
  '### Deeper',
  '1. [ ] still optional',
  '## Later',
  '- [ ] blocking again',
  '~~~',
  '- [ ] in a fence never closed',
].join('\n');

describe('reparseFixPlan: the same result as a whole parse', () => {
  const lines = PLAN.split('\n');
  const edits: Array<[string, (line: string) => string]> = [
    ['ticked', (line) => line.replace('[ ]', '[x]')],
    ['unticked', (line) => line.replace('[x]', '[ ]')],
    ['reworded', (line) => `${line} (and its tests)`],
    ['shortened', (line) => line.slice(0, Math.max(0, line.length - 3))],
    ['emptied', () => ''],
    ['made an item', () => '- [ ] a new item'],
    ['made a heading', () => '# Nice to have'],
    ['made a fence', () => '```'],
  ];
  for (const [how, edit] of edits) {
    it(`each line ${how}, in LF and CRLF plans, with and without a final newline`, () => {
      for (const eol of ['\n', '\r\n']) {
        for (const end of ['', eol]) {
          const base = whole(lines.join(eol) + end);
          for (let i = 0; i < lines.length; i++) {
            const changed = lines.map((line, j) => (j === i ? edit(line) : line)).join(eol) + end;
            if (changed !== base.text) reparsed(base, changed);
          }
        }
      }
    });
  }

  it('lines added, removed or joined are parsed whole, as a change spanning a heading or a fence; two items changed at once are reused', () => {
    const base = whole(`${PLAN}\n`);
    expect(reparsed(base, `${PLAN}\n- [ ] one more\n`)).toBeUndefined();
    expect(reparsed(base, PLAN.replace('- [ ] write the printer\n', ''))).toBeUndefined();
    expect(reparsed(base, PLAN.replace('prose between items\n', 'prose '))).toBeUndefined();
    expect(
      reparsed(base, `${PLAN.replace('[ ] write the parser', '[x] write the parser').replace('[ ] write the printer', '[x] write the printer')}\n`),
    ).toBeDefined();
    expect(reparsed(base, `${PLAN.replace('[ ] write the parser', '[x] write the parser').replace('[ ] colours', '[x] colours')}\n`)).toBeUndefined();
    expect(reparsed(base, `${PLAN.replace('[ ] write the parser', '[x] write the parser').replace('# Plan', '# Plan!')}\n`)).toBeUndefined();
  });

  it('a chain of ticks reuses each parse in turn; every untouched item is the object it was', () => {
    let last = whole(PLAN);
    for (const item of ['write the parser', 'write the printer', 'colours', 'still optional', 'blocking again', 'in a fence never closed']) {
      const next = reparsed(last, last.text.replace(`[ ] ${item}`, `[x] ${item}`))!;
      expect(next).toBeDefined();
      next.view.items.forEach((planItem, i) => {
        if (planItem.text === item) expect(planItem.done).toBe(true);
        else expect(planItem).toBe(last.view.items[i]);
      });
      last = next;
    }
  });
});

describe('reparseFixPlan: what a reading keeps alive', () => {
  it("an item read from a changed line does not keep that reading's whole text alive", () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // 2,000 items of ~500 bytes: each reading's text is about 1 MB.
    const open = Array.from({ length: 2000 }, (_, i) => `- [ ] item ${i}: ${'make the part work '.repeat(25)}`);
    let last = whole(`# Plan\n${open.join('\n')}\n`);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 40; i++) {
      open[i] = open[i]!.replace('[ ]', '[x]');
      last = reparseFixPlan(last, `# Plan\n${open.join('\n')}\n`, normalizeItemText)!;
    }
    gc();
    // Forty texts of 1 MB would stay alive through the items ticked in them; one is the reading's own.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(10_000_000);
    expect(last.view.blocking.done).toBe(40);
  });
});

describe('readPlanAgain: a plan ticked an item at a time', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('is parsed whole once, then only at the lines that changed', () => {
    const root = mkdtempSync(join(tmpdir(), 'plan-reparse-'));
    dirs.push(root);
    mkdirSync(join(root, '.ralph'));
    const paths = ralphPaths(root);
    const open = Array.from({ length: 1000 }, (_, i) => `- [ ] item ${i}: make part ${i} work`);
    writeFileSync(paths.fixPlan, `# Fix Plan\n${open.join('\n')}\n`);
    const before = wholeParseCount();
    let reading = readPlanAgain(paths, OPTIONAL, undefined);
    for (let i = 0; i < 50; i++) {
      open[i] = open[i]!.replace('[ ]', '[x]');
      writeFileSync(paths.fixPlan, `# Fix Plan\n${open.join('\n')}\n`);
      const next = readPlanAgain(paths, OPTIONAL, reading);
      const [was, now] = [reading, next].map((r) => ('view' in r.read ? r.read.view! : undefined));
      expect(now!.blocking).toEqual({ open: 999 - i, done: i + 1 });
      expect(now!.items[999]).toBe(was!.items[999]);
      reading = next;
    }
    expect(wholeParseCount() - before).toBe(1);
  });
});
