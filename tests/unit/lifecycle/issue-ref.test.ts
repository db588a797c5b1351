import { describe, expect, it } from 'vitest';
import { formatIssueRef, parseIssueRef, repoArgs } from '../../../lib/lifecycle/issue-ref.js';

describe('parseIssueRef', () => {
  it.each([
    ['42', { number: 42 }],
    ['#42', { number: 42 }],
    [' 7 ', { number: 7 }],
    ['octo/hello-world#42', { number: 42, repo: 'octo/hello-world' }],
    ['https://github.com/octo/hello.world/issues/42', { number: 42, repo: 'octo/hello.world' }],
    ['https://github.com/octo/repo/issues/42#issuecomment-1', { number: 42, repo: 'octo/repo' }],
    ['http://github.com/o/r/issues/9/', { number: 9, repo: 'o/r' }],
  ])('reads %j', (text, ref) => {
    expect(parseIssueRef(text)).toEqual(ref);
  });

  it.each([
    '',
    'abc',
    '0',
    '#0',
    '-42',
    '42x',
    'octo#42',
    'a/b/c#1',
    '-o/r#1',
    'o/r#',
    'https://gitlab.com/o/r/issues/1',
    'https://github.com/o/r/pull/1',
    '99999999999999999999',
  ])('refuses %j', (text) => {
    expect(parseIssueRef(text)).toBeUndefined();
  });

  it('adds --repo only when the REF named a repository', () => {
    expect(repoArgs({ number: 1 })).toEqual([]);
    expect(repoArgs({ number: 1, repo: 'o/r' })).toEqual(['--repo', 'o/r']);
    expect(formatIssueRef({ number: 3, repo: 'o/r' })).toBe('o/r#3');
    expect(formatIssueRef({ number: 3 })).toBe('#3');
  });
});
