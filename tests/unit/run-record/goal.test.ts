import { describe, expect, it } from 'vitest';
import { deriveGoal } from '../../../lib/run-record/goal.js';

describe('deriveGoal', () => {
  it('is the open checklist items when fix_plan.md has some, verified by tests when there is a test command', () => {
    const plan = '# Plan\n- [x] done\n- [ ] parse input\n- [ ] add --json\n## Optional\n- [ ] polish\n';
    expect(deriveGoal({ promptText: '# P', fixPlanText: plan, optionalSections: ['Optional'], testCommand: 'npm test' })).toEqual({
      type: 'checklist+tests',
      summary: 'Complete 2 open fix_plan.md items: parse input; add --json',
      source: 'fix_plan.md',
      open_items_at_start: 2,
      test_command: 'npm test',
    });
  });

  it('names the first five items and counts the rest', () => {
    const plan = Array.from({ length: 8 }, (_, i) => `- [ ] item ${i + 1}`).join('\n');
    expect(deriveGoal({ promptText: null, fixPlanText: plan, testCommand: null })).toMatchObject({
      type: 'checklist',
      summary: 'Complete 8 open fix_plan.md items: item 1; item 2; item 3; item 4; item 5; and 3 more',
    });
  });

  it('falls back to the gist of PROMPT.md', () => {
    const prompt = '# Build a URL shortener\n\nUse Node and SQLite.\nKeep it small.\n\n## Rules\n- none\n';
    expect(deriveGoal({ promptText: prompt, fixPlanText: '- [x] all done\n', testCommand: 'npm test' })).toEqual({
      type: 'tests',
      summary: 'Build a URL shortener: Use Node and SQLite. Keep it small.',
      source: 'PROMPT.md',
      open_items_at_start: 0,
      test_command: 'npm test',
    });
    expect(deriveGoal({ promptText: null, fixPlanText: null, testCommand: '  ' })).toMatchObject({
      type: 'open-ended',
      summary: 'Work through PROMPT.md',
      open_items_at_start: null,
      test_command: null,
    });
  });
});
