import { describe, expect, it } from 'vitest';
import { appendGeneratedPlan, buildIssueDocument, slugifyIssueTitle } from '../../../lib/project/issue-document.js';

describe('slugifyIssueTitle', () => {
  it('lowercases, squeezes non-alphanumerics into dashes and trims them', () => {
    expect(slugifyIssueTitle('  Add OAuth2 login (GitHub + Google)!  ', 7)).toBe('add-oauth2-login-github-google');
  });

  it('falls back to issue-N and never yields path characters', () => {
    expect(slugifyIssueTitle('!!!', 12)).toBe('issue-12');
    expect(slugifyIssueTitle('../../etc/passwd', 1)).toBe('etc-passwd');
  });
});

describe('buildIssueDocument', () => {
  const issue = {
    number: 5,
    title: 'Title\nwith newline',
    labels: ['bug', 'P1'],
    assignees: [],
    url: 'https://github.com/o/r/issues/5',
    body: 'The body.\n',
    comments: [{ author: 'alice', body: 'A comment' }],
  };

  it('has the title, the issue line and the body; comments only when asked', () => {
    const doc = buildIssueDocument(issue, false);
    expect(doc).toBe('# Title with newline\n\n> GitHub issue #5 | Labels: bug, P1 | https://github.com/o/r/issues/5\n\nThe body.\n');
    expect(buildIssueDocument(issue, true)).toContain('## Discussion\n\n**alice**:\n\nA comment\n');
  });

  it('appends a generated plan under its own heading', () => {
    expect(appendGeneratedPlan('# T\n\n', '### Approach\nDo it\n')).toBe('# T\n\n## Implementation Plan (generated)\n\n### Approach\nDo it\n');
  });
});
