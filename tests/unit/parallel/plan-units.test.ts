import { describe, expect, it } from 'vitest';
import { assignSlugs, findPlanUnits, orderUnits } from '../../../lib/parallel/plan-units.js';

const PLAN = `# Fix Plan

## High
- [ ] Add the parser
  - [ ] handle quotes
  - note: keep it pure
- [x] Set up the repo
- [ ] Write the docs (after: add the parser)
* [ ] Add the CLI (after: parser)

## Optional
- [ ] Nice extra
`;

describe('findPlanUnits', () => {
  it('makes one unit per blocking open top-level item, with its sub-items, in plan order', () => {
    const result = findPlanUnits(PLAN, ['Optional']);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.units.map((u) => [u.slug, u.item, u.after])).toEqual([
      ['add-the-parser', 'Add the parser', []],
      ['write-the-docs', 'Write the docs', ['add-the-parser']],
      ['add-the-cli', 'Add the CLI', ['add-the-parser']],
    ]);
    expect(result.units[0]!.lines).toEqual(['- [ ] Add the parser', '  - [ ] handle quotes', '  - note: keep it pure']);
    expect(orderUnits(result.units)).toEqual([['add-the-parser'], ['write-the-docs', 'add-the-cli']]);
  });

  it('needs no waiting for an item already done', () => {
    const result = findPlanUnits('- [x] Base\n- [ ] Top (after: base)\n');
    expect(result.ok && result.units.map((u) => u.after)).toEqual([[]]);
  });

  it('refuses a cycle, naming it', () => {
    const result = findPlanUnits('- [ ] Alpha (after: gamma)\n- [ ] Beta (after: alpha)\n- [ ] Gamma (after: beta)\n');
    expect(result).toEqual({ ok: false, problem: 'fix_plan.md: the (after: …) clauses make a cycle: alpha → gamma → beta → alpha' });
  });

  it('refuses a name that matches nothing or several items, with the line', () => {
    expect(findPlanUnits('- [ ] One\n- [ ] Two (after: three)\n')).toEqual({
      ok: false,
      problem: 'fix_plan.md line 2: (after: three) matches no other top-level item of the plan',
    });
    const ambiguous = findPlanUnits('- [ ] Add api\n- [ ] Add api docs\n- [ ] Deploy (after: add)\n');
    expect(ambiguous.ok).toBe(false);
    expect(!ambiguous.ok && ambiguous.problem).toContain('matches 2 items (lines 1, 2)');
  });

  it('prefers an exact match over a partial one', () => {
    const result = findPlanUnits('- [ ] Add api\n- [ ] Add api docs\n- [ ] Deploy (after: add api)\n');
    expect(result.ok && result.units[2]!.after).toEqual(['add-api']);
  });
});

describe('assignSlugs', () => {
  it('keeps slugs short, ASCII and unique', () => {
    expect(assignSlugs(['Fix `rm -rf /` bug!', 'Fix rm rf bug', 'ÄÖÜ', '***'])).toEqual(['fix-rm-rf-bug', 'fix-rm-rf-bug-2', 'aou', 'item']);
    expect(assignSlugs(['x'.repeat(80)])[0]).toHaveLength(40);
  });
});
