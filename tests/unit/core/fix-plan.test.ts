import { describe, expect, it } from 'vitest';
import { isPlanComplete, parseFixPlan } from '../../../lib/core/fix-plan.js';

describe('parseFixPlan checkbox rules (reference §4.4 item 5, #144)', () => {
  it.each([
    ['- [ ] open', 0, 1],
    ['  - [ ] indented open', 0, 1],
    ['\t- [ ] tab-indented open', 0, 1],
    ['- [x] done', 1, 0],
    ['- [X] done upper', 1, 0],
    ['    - [x] nested done', 1, 0],
    ['* [ ] star bullet', 0, 0],
    ['-[ ] no space', 0, 0],
    ['- [2026-01-29] dated entry', 0, 0],
    ['[2026-01-29] dated line', 0, 0],
    ['- [NOTE] a note', 0, 0],
    ['- [v1.0] version', 0, 0],
    ['- [#123] issue', 0, 0],
    ['- [  ] two spaces', 0, 0],
    ['1. [ ] numbered', 0, 0],
  ])('%j → checked %i, unchecked %i', (line, checked, unchecked) => {
    const plan = parseFixPlan(line);
    expect(plan.checked).toBe(checked);
    expect(plan.blockingUnchecked).toBe(unchecked);
  });

  it('lists the open blocking items in order, text only', () => {
    const plan = parseFixPlan('# Plan\r\n- [x] a\r\n- [ ] Write the parser  \r\n  - [ ] Test it\r\n- [ ]\r\n');
    expect(plan.openItems).toEqual(['Write the parser', 'Test it', '']);
    expect(plan).toMatchObject({ checked: 1, blockingUnchecked: 3, optionalUnchecked: 0, totalUnchecked: 3 });
  });
});

describe('parseFixPlan optional sections (#239)', () => {
  const plan = [
    '# Fix plan',
    '## High priority',
    '- [x] core',
    '- [ ] exit gate',
    '## Nice to have',
    '- [ ] colours',
    '### Deeper heading inside the optional section',
    '- [ ] animations',
    '## Low priority ##',
    '- [ ] docs',
    '## Medium',
    '- [ ] more tests',
    '# Stretch goals',
    '- [ ] plugins',
  ].join('\n');

  it('does not block on items under an optional heading or its deeper headings', () => {
    const summary = parseFixPlan(plan, ['Nice to have', ' low priority ', 'Stretch Goals']);
    expect(summary).toEqual({
      checked: 1,
      blockingUnchecked: 2,
      optionalUnchecked: 4,
      totalUnchecked: 6,
      openItems: ['exit gate', 'more tests'],
    });
  });

  it('ends the optional context at the next heading of the same or a higher level', () => {
    const summary = parseFixPlan('## Optional\n- [ ] a\n# Top\n- [ ] b\n## Optional\n- [ ] c\n## Other\n- [ ] d', ['optional']);
    expect(summary.openItems).toEqual(['b', 'd']);
  });

  it('counts every item as blocking when no sections are optional', () => {
    expect(parseFixPlan(plan).blockingUnchecked).toBe(6);
  });
});

describe('isPlanComplete', () => {
  it.each([
    ['- [x] a\n- [x] b', [], true],
    ['- [x] a\n- [ ] b', [], false],
    ['', [], false],
    ['# Notes only\n[2026-01-29] shipped', [], false],
    ['- [x] a\n## Nice to have\n- [ ] b', ['Nice to have'], true],
    ['## Nice to have\n- [ ] b', ['Nice to have'], false],
    ['- [x] a\n- [NOTE] remember\n* [ ] star\n-[ ] tight', [], true],
  ])('%j with optional %j → %s', (text, optional, complete) => {
    expect(isPlanComplete(parseFixPlan(text, optional))).toBe(complete);
  });
});
