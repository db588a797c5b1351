// Property tests of the fix_plan.md parser: never throws, its counts always add up, and for
// generated plans (headings, optional sections, real checkboxes and look-alikes that are not
// checkboxes) it counts exactly what the plan says.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlanComplete, parseFixPlan } from '../../lib/core/fix-plan.js';

const RUNS = 400;
const OPTIONAL = ['Nice to have', 'Optional'];

type PlanLine =
  | { kind: 'heading'; level: number; title: string; optional: boolean }
  | { kind: 'open'; text: string; indent: string }
  | { kind: 'done'; text: string; indent: string; mark: 'x' | 'X' }
  | { kind: 'other'; text: string };

const itemText = fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, ' '));
const indent = fc.constantFrom('', '  ', '    ', '\t');

const planLine: fc.Arbitrary<PlanLine> = fc.oneof(
  fc.record({
    kind: fc.constant('heading' as const),
    level: fc.integer({ min: 1, max: 6 }),
    title: fc.constantFrom('Nice to have', 'NICE TO HAVE', 'Optional ##', '  optional  ', 'Core', 'Tasks', 'Later', 'Nice to have later'),
  }).map((h) => ({ ...h, optional: OPTIONAL.map((o) => o.toLowerCase()).includes(h.title.replace(/[ \t]+#+$/, '').trim().toLowerCase()) })),
  fc.record({ kind: fc.constant('open' as const), text: itemText, indent }),
  fc.record({ kind: fc.constant('done' as const), text: itemText, indent, mark: fc.constantFrom('x' as const, 'X' as const) }),
  fc.record({
    kind: fc.constant('other' as const),
    text: fc.oneof(
      // Look-alikes that are not checkboxes (#144), and headings that are not headings.
      fc.constantFrom('* [ ] star item', '-[ ] no space', '- [] empty', '- [ x] spaced', '[2026-01-29] dated', '- [NOTE] n', '- [v1.0]',
        '- [#123] ref', '####### seven', '#no-space', '+ [ ] plus', '1. [ ] numbered', '- [y] other mark', 'Plain prose', ''),
      fc.string({ unit: 'grapheme-ascii', maxLength: 30 }).map((s) => `Note: ${s}`),
    ),
  }),
);

function render(line: PlanLine): string {
  switch (line.kind) {
    case 'heading':
      return `${'#'.repeat(line.level)} ${line.title}`;
    case 'open':
      return `${line.indent}- [ ] ${line.text}`;
    case 'done':
      return `${line.indent}- [${line.mark}] ${line.text}`;
    case 'other':
      return line.text;
  }
}

function expectedSummary(lines: PlanLine[]) {
  let optionalLevel: number | null = null;
  const s = { checked: 0, blockingUnchecked: 0, optionalUnchecked: 0, totalUnchecked: 0, openItems: [] as string[] };
  for (const line of lines) {
    if (line.kind === 'heading') {
      if (optionalLevel !== null && line.level <= optionalLevel) optionalLevel = null;
      if (optionalLevel === null && line.optional) optionalLevel = line.level;
    } else if (line.kind === 'open') {
      s.totalUnchecked++;
      if (optionalLevel === null) {
        s.blockingUnchecked++;
        s.openItems.push(line.text.trim());
      } else s.optionalUnchecked++;
    } else if (line.kind === 'done') s.checked++;
  }
  return s;
}

describe('parseFixPlan (property)', () => {
  it('never throws, and its counts always add up', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 600 }), fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 }), (text, optional) => {
        const s = parseFixPlan(text, optional);
        expect(s.totalUnchecked).toBe(s.blockingUnchecked + s.optionalUnchecked);
        expect(s.openItems).toHaveLength(s.blockingUnchecked);
        expect(isPlanComplete(s)).toBe(s.blockingUnchecked === 0 && s.checked + s.blockingUnchecked > 0);
      }),
      { numRuns: RUNS },
    );
  });

  it('counts exactly the checkboxes of a generated plan, honouring optional sections', () => {
    fc.assert(
      fc.property(fc.array(planLine, { maxLength: 40 }), fc.constantFrom('\n', '\r\n'), (lines, eol) => {
        const text = lines.map(render).join(eol);
        expect(parseFixPlan(text, OPTIONAL)).toEqual(expectedSummary(lines));
      }),
      { numRuns: RUNS },
    );
  });

  it('ticking every open item completes a plan that has items', () => {
    fc.assert(
      fc.property(fc.array(planLine, { maxLength: 30 }), (lines) => {
        const ticked = lines.map((l) => (l.kind === 'open' ? { ...l, kind: 'done' as const, mark: 'x' as const } : l));
        const s = parseFixPlan(ticked.map(render).join('\n'), OPTIONAL);
        expect(s.blockingUnchecked).toBe(0);
        expect(isPlanComplete(s)).toBe(s.checked > 0);
      }),
      { numRuns: RUNS },
    );
  });
});
