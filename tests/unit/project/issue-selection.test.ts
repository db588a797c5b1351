import { describe, expect, it } from 'vitest';
import { applyClientFilters, issuePriority, selectIssue, titlePatternToRegExp } from '../../../lib/project/issue-selection.js';
import type { IssueSummary } from '../../../lib/tasks/github-issues.js';

const issue = (number: number, title: string, labels: string[] = []): IssueSummary => ({ number, title, labels, assignees: [] });

describe('titlePatternToRegExp', () => {
  it('treats * as the only wildcard, anchored and case-insensitive', () => {
    const re = titlePatternToRegExp('Add * (v2.0)');
    expect(re.test('add login page (V2.0)')).toBe(true);
    expect(re.test('Add login (v2x0)')).toBe(false);
    expect(re.test('Please Add x (v2.0)')).toBe(false);
    expect(titlePatternToRegExp('a.b').test('axb')).toBe(false);
  });
});

describe('applyClientFilters', () => {
  it('drops excluded labels (case-insensitive), applies the title pattern and sorts by number', () => {
    const issues = [issue(9, 'Bug: crash'), issue(3, 'Bug: slow', ['WontFix']), issue(5, 'Bug: typo'), issue(1, 'Feature')];
    expect(applyClientFilters(issues, { excludeLabels: ['wontfix'], titlePattern: 'bug:*' }).map((i) => i.number)).toEqual([5, 9]);
  });
});

describe('selectIssue', () => {
  const issues = [issue(7, 'a', ['P2']), issue(4, 'b'), issue(9, 'c', ['priority: p1']), issue(12, 'd', ['P1'])];

  it('first = lowest number', () => {
    expect(selectIssue(issues, 'first')?.number).toBe(4);
  });

  it('priority = lowest P digit, ties by number, none → first', () => {
    expect(selectIssue(issues, 'priority')?.number).toBe(9);
    expect(selectIssue([issue(8, 'x'), issue(2, 'y')], 'priority')?.number).toBe(2);
  });

  it('reads P0–P9 and "priority: Pn" labels only', () => {
    expect(issuePriority(issue(1, 'x', ['p3', 'P10', 'priority:P0']))).toBe(0);
    expect(issuePriority(issue(1, 'x', ['P10', 'high']))).toBeUndefined();
  });
});
