// ralph-import's flag table: every row parsed (argv → options), the generated error cases, and
// --help naming every row (flag-table-suite.ts). The cross-flag rules are in
// tests/integration/bootstrap/import-args.test.ts.

import { describe } from 'vitest';
import { IMPORT_FLAGS, parseImportArgs, renderImportHelp } from '../../../../lib/cli/import/import-args.js';
import { checkFlagTable } from '../flag-table-suite.js';

describe('the ralph-import flag table', () => {
  checkFlagTable({
    rows: IMPORT_FLAGS,
    // Plan options go with a GitHub import.
    prefix: ['--github-issue', '3'],
    parse: parseImportArgs,
    help: renderImportHelp(),
    cases: {
      'github-issue': [['--github-issue', '12'], { githubIssue: 12, hasFilters: false }],
      'github-search': [['--github-search', 'is:open login'], { hasFilters: true, query: { search: 'is:open login' } }],
      'github-label': [['--github-label', 'bug, ui'], { hasFilters: true, query: { labels: ['bug', 'ui'] } }],
      'github-title': [['--github-title', 'Login*'], { hasFilters: true, titlePattern: 'Login*' }],
      'github-assignee': [['--github-assignee', '@me'], { query: { assignee: '@me' } }],
      'github-milestone': [['--github-milestone', 'v1'], { query: { milestone: 'v1' } }],
      'github-state': [['--github-state', 'closed'], { hasFilters: true, query: { state: 'closed' } }],
      'exclude-label': [['--github-label', 'bug', '--exclude-label', 'wontfix,later'], { excludeLabels: ['wontfix', 'later'] }],
      select: [['--github-label', 'bug', '--select', 'priority'], { select: 'priority' }],
      'dry-run': [['--github-label', 'bug', '--dry-run'], { dryRun: true }],
      repo: [['--github-issue', '3', '--repo', 'me/app'], { query: { repo: 'me/app', state: 'open' } }],
      'include-comments': [['--github-issue', '3', '--include-comments'], { includeComments: true }],
      'generate-plan': [['--github-issue', '3', '--no-generate-plan'], { generatePlan: false }],
      'plan-model': [['--github-issue', '3', '--plan-model', 'opus'], { planModel: 'opus', generatePlan: undefined }],
      'completeness-threshold': [['--github-issue', '3', '--completeness-threshold', '80'], { completenessThreshold: 80 }],
      'auto-approve': [['--github-issue', '3', '--auto-approve'], { autoApprove: true }],
      force: [['prd.md', '--force'], { force: true, positional: ['prd.md'] }],
      'allow-root-agent': [['prd.md', '--allow-root-agent'], { allowRootAgent: true, positional: ['prd.md'] }],
      help: [['--help'], { help: true }],
      version: [['--version'], { help: false }],
      debug: [['prd.md', '--debug'], { positional: ['prd.md'], select: 'first', completenessThreshold: 60 }],
    },
  });
});
