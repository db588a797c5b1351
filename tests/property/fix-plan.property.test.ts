// Property tests of the fix_plan.md parser: never throws, its counts always add up, and for
// generated plans (headings, optional sections, task-list items with every marker, look-alikes
// that are not items, fenced code blocks) it counts exactly what the plan says.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlanComplete, parseFixPlan } from '../../lib/plan/fix-plan.js';

const RUNS = 400;
const OPTIONAL = ['Nice to have', 'Optional'];

type PlanLine =
  | { kind: 'heading'; level: number; title: string; optional: boolean }
  | { kind: 'open'; text: string; indent: string; marker: string }
  | { kind: 'done'; text: string; indent: string; marker: string; mark: 'x' | 'X' }
  | { kind: 'fence'; fence: string; body: string[] }
  | { kind: 'other'; text: string };

const itemText = fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, ' '));
const indent = fc.constantFrom('', '  ', '    ', '\t');
const marker = fc.constantFrom('-', '*', '+', '1.', '2)', '10.');
// What users put in fences: example items, headings that are comments, other fences' lines.
const fenceBody = fc.array(fc.constantFrom('- [ ] example', '* [x] done example', '# Optional', '## Nice to have', '```', 'echo hi', '  ~~~'), {
  maxLength: 4,
});

const planLine: fc.Arbitrary<PlanLine> = fc.oneof(
  fc
    .record({
      kind: fc.constant('heading' as const),
      level: fc.integer({ min: 1, max: 6 }),
      title: fc.constantFrom('Nice to have', 'NICE TO HAVE', 'Optional ##', '  optional  ', 'Core', 'Tasks', 'Later', 'Nice to have later'),
    })
    .map((h) => ({
      ...h,
      optional: OPTIONAL.map((o) => o.toLowerCase()).includes(
        h.title
          .replace(/[ \t]+#+$/, '')
          .trim()
          .toLowerCase(),
      ),
    })),
  fc.record({ kind: fc.constant('open' as const), text: itemText, indent, marker }),
  fc.record({ kind: fc.constant('done' as const), text: itemText, indent, marker, mark: fc.constantFrom('x' as const, 'X' as const) }),
  fc.record({ kind: fc.constant('fence' as const), fence: fc.constantFrom('~~~', '~~~~', '```bash', '````', '  ```md'), body: fenceBody }),
  fc.record({
    kind: fc.constant('other' as const),
    text: fc.oneof(
      // Look-alikes that are not checkboxes (#144), and headings that are not headings.
      fc.constantFrom(
        '-[ ] no space',
        '- [] empty',
        '- [ x] spaced',
        '[2026-01-29] dated',
        '- [NOTE] n',
        '- [v1.0]',
        '- [#123] ref',
        '####### seven',
        '#no-space',
        '1.[ ] tight',
        'a. [ ] letter',
        '- [y] other mark',
        'Plain prose',
        '',
      ),
      fc.string({ unit: 'grapheme-ascii', maxLength: 30 }).map((s) => `Note: ${s}`),
    ),
  }),
);

function render(line: PlanLine): string {
  switch (line.kind) {
    case 'heading':
      return `${'#'.repeat(line.level)} ${line.title}`;
    case 'open':
      return `${line.indent}${line.marker} [ ] ${line.text}`;
    case 'done':
      return `${line.indent}${line.marker} [${line.mark}] ${line.text}`;
    case 'fence': {
      // Closed by the same run of characters, indent dropped: a valid closing line.
      const close = line.fence.trim().replace(/[a-z]+$/, '');
      return [line.fence, ...line.body.filter((b) => !closes(b, close)), close].join('\n');
    }
    case 'other':
      return line.text;
  }
}

function closes(line: string, fence: string): boolean {
  const m = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
  return m !== null && m[1]![0] === fence[0] && m[1]!.length >= fence.length;
}

function expectedView(lines: PlanLine[]) {
  let optionalLevel: number | null = null;
  const s = { blocking: { open: 0, done: 0 }, optional: { open: 0, done: 0 }, openItems: [] as string[] };
  for (const line of lines) {
    if (line.kind === 'heading') {
      if (optionalLevel !== null && line.level <= optionalLevel) optionalLevel = null;
      if (optionalLevel === null && line.optional) optionalLevel = line.level;
    } else if (line.kind === 'open' || line.kind === 'done') {
      const counts = optionalLevel === null ? s.blocking : s.optional;
      if (line.kind === 'done') counts.done++;
      else counts.open++;
      if (line.kind === 'open' && optionalLevel === null) s.openItems.push(line.text.trim());
    }
  }
  return s;
}

describe('parseFixPlan (property)', () => {
  it('never throws, and its counts always add up', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 600 }), fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 }), (text, optional) => {
        const s = parseFixPlan(text, optional);
        expect(s.items).toHaveLength(s.blocking.open + s.blocking.done + s.optional.open + s.optional.done);
        expect(s.openItems).toHaveLength(s.blocking.open);
        expect(s.items.filter((i) => !i.optional && !i.done).map((i) => i.text)).toEqual(s.openItems);
        expect(isPlanComplete(s)).toBe(s.blocking.open === 0 && s.blocking.done + s.optional.done > 0);
      }),
      { numRuns: RUNS },
    );
  });

  it('counts exactly the items of a generated plan, honouring optional sections and skipping fences', () => {
    fc.assert(
      fc.property(fc.array(planLine, { maxLength: 40 }), fc.constantFrom('\n', '\r\n'), (lines, eol) => {
        const text = lines.map(render).join(eol);
        expect(parseFixPlan(text, OPTIONAL)).toMatchObject({ ...expectedView(lines), unclosedFenceLine: null });
      }),
      { numRuns: RUNS },
    );
  });

  it('ticking every open item completes a plan that has items', () => {
    fc.assert(
      fc.property(fc.array(planLine, { maxLength: 30 }), (lines) => {
        const ticked = lines.map((l) => (l.kind === 'open' ? { ...l, kind: 'done' as const, mark: 'x' as const } : l));
        const s = parseFixPlan(ticked.map(render).join('\n'), OPTIONAL);
        expect(s.blocking.open).toBe(0);
        expect(isPlanComplete(s)).toBe(s.blocking.done + s.optional.done > 0);
      }),
      { numRuns: RUNS },
    );
  });
});
