// ralph-import's command line (reference §10.1): parsing and the cross-flag rules. Every
// problem is a RalphError with exit code 1, as in the Bash tool.

import { RalphError } from '../errors.js';
import type { SelectionStrategy } from '../project/issue-selection.js';
import { DEFAULT_COMPLETENESS_THRESHOLD } from '../project/issue-completeness.js';
import type { IssueQuery } from '../tasks/github-issues.js';
import { createParser, UsageError } from './bootstrap-args.js';

export interface ImportArgs {
  positional: string[];
  githubIssue?: number;
  query: IssueQuery;
  /** True when any filter flag (including --github-state) was given. */
  hasFilters: boolean;
  titlePattern?: string;
  excludeLabels: string[];
  select: SelectionStrategy;
  dryRun: boolean;
  includeComments: boolean;
  /** true = always, false = never, undefined = when the issue scores low. */
  generatePlan?: boolean;
  planModel?: string;
  completenessThreshold: number;
  autoApprove: boolean;
  force: boolean;
  help: boolean;
}

const usage = (message: string) => new RalphError('usage', message, { hint: 'run ralph-import --help' });

/** The flags of ralph-import; IMPORT_HELP lists exactly these (tests/unit/cli/help-sync.test.ts). */
export function importParser(argv: readonly string[]) {
  return createParser(argv, 'ralph-import')
    .option('github-issue', { type: 'string', requiresArg: true })
    .option('github-search', { type: 'string', requiresArg: true })
    .option('github-label', { type: 'string', requiresArg: true })
    .option('github-title', { type: 'string', requiresArg: true })
    .option('github-assignee', { type: 'string', requiresArg: true })
    .option('github-milestone', { type: 'string', requiresArg: true })
    .option('github-state', { type: 'string', requiresArg: true, choices: ['open', 'closed', 'all'] })
    .option('exclude-label', { type: 'string', requiresArg: true })
    .option('select', { type: 'string', requiresArg: true, choices: ['first', 'interactive', 'priority'] })
    .option('dry-run', { type: 'boolean' })
    .option('repo', { type: 'string', requiresArg: true })
    .option('include-comments', { type: 'boolean' })
    .option('generate-plan', { type: 'boolean' })
    .option('plan-model', { type: 'string', requiresArg: true })
    .option('completeness-threshold', { type: 'string', requiresArg: true })
    .option('auto-approve', { type: 'boolean' })
    .option('force', { type: 'boolean' })
    .option('help', { alias: 'h', type: 'boolean', default: false })
    .option('debug', { type: 'boolean', hidden: true })
    .option('version', { type: 'boolean', default: false });
}

export async function parseImportArgs(argv: readonly string[]): Promise<ImportArgs> {
  let parsed;
  try {
    parsed = await importParser(argv).parseAsync();
  } catch (error) {
    if (error instanceof UsageError) throw usage(error.message);
    throw error;
  }
  const text = (key: string): string | undefined => {
    const value = (parsed as Record<string, unknown>)[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.trim() === '') throw usage(`--${kebab(key)} requires a value`);
    return value.trim();
  };
  const issueText = text('githubIssue');
  if (issueText !== undefined && !/^[1-9][0-9]*$/.test(issueText)) throw usage(`--github-issue must be a positive issue number, got "${issueText}"`);
  const labels = splitList(text('githubLabel'));
  if (text('githubLabel') !== undefined && labels.length === 0) throw usage('--github-label needs at least one label');
  const thresholdText = text('completenessThreshold');
  const threshold = thresholdText === undefined ? DEFAULT_COMPLETENESS_THRESHOLD : Number(thresholdText);
  if (thresholdText !== undefined && (!/^\d+$/.test(thresholdText) || threshold > 100)) {
    throw usage(`--completeness-threshold must be an integer from 0 to 100, got "${thresholdText}"`);
  }
  if (argv.includes('--generate-plan') && argv.includes('--no-generate-plan')) throw usage('--generate-plan and --no-generate-plan cannot be combined');

  const state = text('githubState') as IssueQuery['state'] | undefined;
  const args: ImportArgs = {
    positional: parsed._.map(String),
    githubIssue: issueText === undefined ? undefined : Number(issueText),
    query: {
      state: state ?? 'open',
      labels,
      search: text('githubSearch'),
      assignee: text('githubAssignee'),
      milestone: text('githubMilestone'),
      repo: text('repo'),
    },
    titlePattern: text('githubTitle'),
    hasFilters: ['githubSearch', 'githubLabel', 'githubTitle', 'githubAssignee', 'githubMilestone', 'githubState'].some((key) => text(key) !== undefined),
    excludeLabels: splitList(text('excludeLabel')),
    select: (text('select') as SelectionStrategy | undefined) ?? 'first',
    dryRun: parsed.dryRun === true,
    includeComments: parsed.includeComments === true,
    generatePlan: parsed.generatePlan as boolean | undefined,
    planModel: text('planModel'),
    completenessThreshold: threshold,
    autoApprove: parsed.autoApprove === true,
    force: parsed.force === true,
    help: parsed.help,
  };
  checkCombinations(args, { selectGiven: text('select') !== undefined, excludeGiven: text('excludeLabel') !== undefined, thresholdGiven: thresholdText !== undefined });
  return args;
}

function checkCombinations(args: ImportArgs, given: { selectGiven: boolean; excludeGiven: boolean; thresholdGiven: boolean }): void {
  const modifiers = given.selectGiven || given.excludeGiven || args.dryRun;
  if (args.githubIssue !== undefined && (args.hasFilters || modifiers)) {
    throw usage('--github-issue cannot be combined with filters (--github-search/-label/-title/-assignee/-milestone/-state) or modifiers (--exclude-label, --select, --dry-run)');
  }
  const github = args.githubIssue !== undefined || args.hasFilters;
  if (modifiers && !args.hasFilters) throw usage('--exclude-label, --select and --dry-run need at least one filter (e.g. --github-label)');
  const planFlags = args.generatePlan !== undefined || args.planModel !== undefined || given.thresholdGiven || args.autoApprove;
  if (planFlags && !github) throw usage('plan options (--generate-plan, --plan-model, --completeness-threshold, --auto-approve) need a GitHub issue import');
  if (github && args.positional.length > 1) throw usage(`expected at most one project name, got ${args.positional.length}`);
  if (!github && args.positional.length > 2) throw usage(`expected <source-file> [project-name], got ${args.positional.length} arguments`);
}

function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`);
}
