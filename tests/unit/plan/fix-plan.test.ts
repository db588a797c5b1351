import { describe, expect, it } from 'vitest';
import { describePlanProgress, isPlanComplete, parseFixPlan } from '../../../lib/plan/fix-plan.js';

const counts = (text: string, optional: string[] = []) => {
  const { blocking, optional: opt } = parseFixPlan(text, optional);
  return { blocking, optional: opt };
};

describe('parseFixPlan checkbox rules (#144)', () => {
  it.each([
    ['- [ ] open', 0, 1],
    ['  - [ ] indented open', 0, 1],
    ['\t- [ ] tab-indented open', 0, 1],
    ['- [x] done', 1, 0],
    ['- [X] done upper', 1, 0],
    ['    - [x] nested done', 1, 0],
    ['-[ ] no space', 0, 0],
    ['- [2026-01-29] dated entry', 0, 0],
    ['[2026-01-29] dated line', 0, 0],
    ['- [NOTE] a note', 0, 0],
    ['- [v1.0] version', 0, 0],
    ['- [#123] issue', 0, 0],
    ['- [  ] two spaces', 0, 0],
    ['[ ] no marker', 0, 0],
    ['1.[ ] no space after the number', 0, 0],
    ['a. [ ] letter', 0, 0],
  ])('%j → done %i, open %i', (line, done, open) => {
    expect(counts(line).blocking).toEqual({ done, open });
  });

  it.each([
    ['* [ ] star', 0, 1],
    ['+ [ ] plus', 0, 1],
    ['1. [ ] numbered', 0, 1],
    ['12) [ ] numbered with a parenthesis', 0, 1],
    ['  * [x] nested star done', 1, 0],
    ['3. [X] numbered done', 1, 0],
  ])('GitHub task-list marker %j → done %i, open %i', (line, done, open) => {
    expect(counts(line).blocking).toEqual({ done, open });
  });

  it('four open `* [ ]` items and one `- [x]` is an open plan, not a complete one', () => {
    const plan = parseFixPlan('# Plan\n- [x] setup\n* [ ] one\n* [ ] two\n* [ ] three\n* [ ] four\n');
    expect(plan.blocking).toEqual({ open: 4, done: 1 });
    expect(plan.openItems).toEqual(['one', 'two', 'three', 'four']);
    expect(isPlanComplete(plan)).toBe(false);
  });

  it('counts an item whose text holds a Unicode line or paragraph separator (it cannot hide an open item)', () => {
    for (const sep of ['\u2028', '\u2029', '\u0085']) {
      const view = parseFixPlan(`- [x] done\n- [ ] still open${sep}really\n- [ ] ${sep}\n`);
      expect(view.blocking, JSON.stringify(sep)).toEqual({ open: 2, done: 1 });
      expect(isPlanComplete(view)).toBe(false);
    }
  });

  it('lists the open blocking items in order, text only', () => {
    const plan = parseFixPlan('# Plan\r\n- [x] a\r\n- [ ] Write the parser  \r\n  - [ ] Test it\r\n- [ ]\r\n');
    expect(plan.openItems).toEqual(['Write the parser', 'Test it', '']);
    expect(plan).toMatchObject({ blocking: { done: 1, open: 3 }, optional: { done: 0, open: 0 } });
  });

  it('gives every item with its text, state, section and line', () => {
    const plan = parseFixPlan('# Plan\n## Core\n- [x] a\n## Optional\n1. [ ] b', ['Optional']);
    expect(plan.items).toEqual([
      { text: 'a', done: true, optional: false, line: 3, section: 'Core' },
      { text: 'b', done: false, optional: true, line: 5, section: 'Optional' },
    ]);
    expect(plan.sections).toEqual([
      { title: 'Plan', level: 1, optional: false, line: 1 },
      { title: 'Core', level: 2, optional: false, line: 2 },
      { title: 'Optional', level: 2, optional: true, line: 4 },
    ]);
  });
});

describe('parseFixPlan fenced code blocks', () => {
  it('does not count items inside a ``` fence with an info string', () => {
    const plan = parseFixPlan('- [x] real\n```markdown\n- [ ] an example item\n* [ ] another\n```\n');
    expect(plan.blocking).toEqual({ open: 0, done: 1 });
    expect(isPlanComplete(plan)).toBe(true);
  });

  it('does not count items inside a ~~~ fence', () => {
    expect(counts('~~~\n- [ ] example\n- [x] example\n~~~\n- [ ] real').blocking).toEqual({ open: 1, done: 0 });
  });

  it('does not take a heading inside a fence as a section: a `# Optional` comment in bash keeps real items blocking', () => {
    const text = ['## Tasks', '```bash', '# Optional', '# set the port', 'export PORT=3000', '```', '- [ ] Write the server', '- [ ] Write the tests'].join(
      '\n',
    );
    const plan = parseFixPlan(text, ['Optional']);
    expect(plan.blocking).toEqual({ open: 2, done: 0 });
    expect(plan.optional).toEqual({ open: 0, done: 0 });
    expect(plan.sections.map((s) => s.title)).toEqual(['Tasks']);
  });

  it('closes a fence only on the same character, at least as long', () => {
    const text = [
      '````md',
      '```',
      '- [ ] inside: a shorter fence does not close',
      '~~~~',
      '- [ ] inside: tildes do not close backticks',
      '````',
      '- [ ] outside',
    ].join('\n');
    expect(parseFixPlan(text).openItems).toEqual(['outside']);
    expect(parseFixPlan('~~~~\n~~~\n- [ ] in\n~~~~~\n- [ ] out').openItems).toEqual(['out']);
  });

  it('does not close on a fence line with text after it', () => {
    expect(parseFixPlan('```\n```js\n- [ ] in\n```\n- [ ] out').openItems).toEqual(['out']);
  });

  it('accepts a fence indented up to 3 spaces, not 4', () => {
    expect(parseFixPlan('   ```\n- [ ] in\n   ```\n- [ ] out').openItems).toEqual(['out']);
    expect(parseFixPlan('    ```\n- [ ] a\n    ```\n- [ ] b').openItems).toEqual(['a', 'b']);
  });

  it('does not open a fence on backticks followed by a backtick in the info string', () => {
    expect(parseFixPlan('``` not `a` fence\n- [ ] a').openItems).toEqual(['a']);
  });

  it('counts the items of a fence that is never closed, as blocking, so a typo cannot make the plan look done', () => {
    const plan = parseFixPlan('## Optional\n- [ ] nice\n```\n# Tasks\n- [ ] real', ['Optional']);
    expect(plan.unclosedFenceLine).toBe(3);
    expect(plan.openItems).toEqual(['real']);
    expect(plan.optional.open).toBe(1);
    // …and its headings are not sections: `# Optional` inside it cannot make anything optional.
    const other = parseFixPlan('```\n# Optional\n- [ ] real', ['Optional']);
    expect(other.blocking.open).toBe(1);
    expect(other.sections).toEqual([]);
  });

  it('reports no unclosed fence when every fence closes', () => {
    expect(parseFixPlan('```\n```\n~~~\n~~~').unclosedFenceLine).toBeNull();
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
    '- [x] icons',
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
    expect(summary.blocking).toEqual({ open: 2, done: 1 });
    expect(summary.optional).toEqual({ open: 4, done: 1 });
    expect(summary.openItems).toEqual(['exit gate', 'more tests']);
  });

  it('ends the optional context at the next heading of the same or a higher level', () => {
    const summary = parseFixPlan('## Optional\n- [ ] a\n# Top\n- [ ] b\n## Optional\n- [ ] c\n## Other\n- [ ] d', ['optional']);
    expect(summary.openItems).toEqual(['b', 'd']);
  });

  it('reads a heading indented up to 3 spaces, not 4', () => {
    expect(parseFixPlan('   ## Optional\n- [ ] a', ['Optional']).optional.open).toBe(1);
    expect(parseFixPlan('    ## Optional\n- [ ] a', ['Optional']).blocking.open).toBe(1);
  });

  it('counts every item as blocking when no sections are optional', () => {
    expect(parseFixPlan(plan).blocking).toEqual({ open: 6, done: 2 });
  });
});

describe('describePlanProgress: one meaning of progress', () => {
  it('counts blocking items as done / total and shows optional open ones apart', () => {
    const plan = parseFixPlan('- [x] a\n- [ ] b\n## Optional\n- [ ] c\n- [x] d', ['Optional']);
    expect(describePlanProgress(plan)).toBe('1/2 done · 1 optional open');
    expect(describePlanProgress(parseFixPlan('- [x] a'))).toBe('1/1 done');
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
    ['- [x] a\n- [NOTE] remember\n-[ ] tight', [], true],
    ['- [x] a\n* [ ] star', [], false],
    ['- [x] a\n```\n- [ ] example\n```', [], true],
  ])('%j with optional %j → %s', (text, optional, complete) => {
    expect(isPlanComplete(parseFixPlan(text, optional))).toBe(complete);
  });
});
