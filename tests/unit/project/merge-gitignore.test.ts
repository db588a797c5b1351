import { describe, expect, it } from 'vitest';
import { mergeGitignore } from '../../../lib/project/merge-gitignore.js';

describe('mergeGitignore', () => {
  const template = '# Ralph\n.ralph/status.json\n.ralph/logs/*\n\nnode_modules/\n';

  it('keeps every user line and appends only the missing patterns', () => {
    expect(mergeGitignore('dist\nnode_modules/', template)).toBe(
      'dist\nnode_modules/\n\n# Added by Ralph: state and logs that must not be committed\n.ralph/status.json\n.ralph/logs/*\n',
    );
  });

  it('changes nothing when every pattern is present', () => {
    const complete = '.ralph/status.json\n.ralph/logs/*\nnode_modules/\n';
    expect(mergeGitignore(complete, template)).toBe(complete);
  });
});
