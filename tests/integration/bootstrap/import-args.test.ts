// ralph-import's flag rules: every violation is a usage error (exit 1).
import { describe, expect, it } from 'vitest';
import { parseImportArgs } from '../../../lib/cli/import/import-args.js';
import { isRalphError } from '../../../lib/errors.js';

async function usageError(argv: string[]): Promise<string> {
  try {
    await parseImportArgs(argv);
  } catch (error) {
    if (isRalphError(error)) {
      expect(error.exitCode).toBe(1);
      return error.message;
    }
    throw error;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

describe('parseImportArgs', () => {
  it('reads a file import with an optional project name', async () => {
    expect(await parseImportArgs(['prd.md', 'app'])).toMatchObject({ positional: ['prd.md', 'app'], hasFilters: false, githubIssue: undefined });
  });

  it('reads filters and modifiers', async () => {
    const args = await parseImportArgs([
      '--github-label',
      'bug, ui',
      '--exclude-label',
      'wontfix',
      '--select',
      'priority',
      '--github-assignee',
      'none',
      '--dry-run',
      'proj',
    ]);
    expect(args).toMatchObject({
      query: { state: 'open', labels: ['bug', 'ui'], assignee: 'none' },
      excludeLabels: ['wontfix'],
      select: 'priority',
      dryRun: true,
      hasFilters: true,
      positional: ['proj'],
    });
  });

  it('reads plan options for GitHub imports', async () => {
    expect(await parseImportArgs(['--github-issue', '12', '--no-generate-plan', '--completeness-threshold', '80'])).toMatchObject({
      githubIssue: 12,
      generatePlan: false,
      completenessThreshold: 80,
    });
  });

  it('rejects bad values, bad combinations and unknown flags', async () => {
    expect(await usageError(['--github-issue', '0'])).toContain('positive issue number');
    expect(await usageError(['--github-issue', 'abc'])).toContain('positive issue number');
    expect(await usageError(['--github-label', ' , '])).toContain('at least one label');
    expect(await usageError(['--github-issue', '3', '--github-label', 'x'])).toContain('cannot be combined');
    expect(await usageError(['--github-issue', '3', '--dry-run'])).toContain('cannot be combined');
    expect(await usageError(['--dry-run', 'prd.md'])).toContain('need at least one filter');
    expect(await usageError(['prd.md', '--generate-plan'])).toContain('need a GitHub issue import');
    expect(await usageError(['--github-issue', '3', '--generate-plan', '--no-generate-plan'])).toContain('cannot be combined');
    expect(await usageError(['--github-label', 'x', '--completeness-threshold', '101'])).toContain('0 to 100');
    expect(await usageError(['--github-state', 'merged', '--github-label', 'x'])).toBe('--github-state must be one of open, closed, all, got "merged"');
    expect(await usageError(['--github-search'])).toBe('--github-search requires a value');
    expect(await usageError(['--bogus', 'prd.md'])).toBe('Unknown argument: bogus');
    expect(await usageError(['a.md', 'b', 'c'])).toContain('<source-file> [project-name]');
  });
});
