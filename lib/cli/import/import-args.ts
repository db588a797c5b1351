// ralph-import's command line: its flag table (parsing, checks and --help come
// from the rows, flag-table.ts) and the cross-flag rules. Every problem is a RalphError with exit
// code 1, as in the Bash tool.

import { RalphError } from '../../errors.js';
import type { SelectionStrategy } from '../../project/issue-selection.js';
import { DEFAULT_COMPLETENESS_THRESHOLD } from '../../project/issue-completeness.js';
import type { IssueQuery } from '../../tasks/github-issues.js';
import { CONFIG_SCHEMA } from '../../config/schema.js';
import { DEBUG_ROW, HELP_ROW, parseFlags, renderHelp, VERSION_ROW, type FlagRow, type FlagTable } from '../flag-table.js';

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
  /** --allow-root-agent: run as root in a folder root owns, the agent runs as root. */
  allowRootAgent: boolean;
  help: boolean;
}

const HELP_HINT = 'run ralph-import --help';
const usage = (message: string) => new RalphError('usage', message, { hint: HELP_HINT });

const GITHUB = 'GitHub issue';
const FILTERS = 'Filters (choose one issue among matches)';
const MODIFIERS = 'Modifiers';
const COMMON = 'Common';
const PLAN = 'Plan generation (GitHub only)';
const OTHER = 'Options';

/** The filter flags: any of them makes an import pick among matching issues. */
const FILTER_FLAGS = ['github-search', 'github-label', 'github-title', 'github-assignee', 'github-milestone', 'github-state'];

export const IMPORT_FLAGS: readonly FlagRow[] = [
  {
    name: 'github-issue',
    arg: 'N',
    section: GITHUB,
    describe: 'Import issue N',
    check: (value) => (/^[1-9][0-9]*$/.test(value.trim()) ? undefined : { message: `--github-issue must be a positive issue number, got "${value.trim()}"` }),
  },
  { name: 'github-search', arg: 'QUERY', section: FILTERS, describe: 'GitHub search query' },
  { name: 'github-label', arg: 'L1,L2', section: FILTERS, describe: 'Issues with all of these labels' },
  { name: 'github-title', arg: 'PATTERN', section: FILTERS, describe: 'Title match, case-insensitive; * is the only wildcard' },
  { name: 'github-assignee', arg: 'USER', section: FILTERS, describe: 'Issues assigned to USER, @me or none' },
  { name: 'github-milestone', arg: 'NAME', section: FILTERS, describe: 'Issues in this milestone' },
  { name: 'github-state', arg: 'STATE', choices: ['open', 'closed', 'all'], default: 'open', section: FILTERS, describe: 'open, closed or all' },
  { name: 'exclude-label', arg: 'L1,L2', section: MODIFIERS, describe: 'Skip issues with any of these labels' },
  {
    name: 'select',
    arg: 'HOW',
    choices: ['first', 'interactive', 'priority'],
    default: 'first',
    section: MODIFIERS,
    describe: 'How to pick among matches: first, interactive or priority',
  },
  { name: 'dry-run', section: MODIFIERS, describe: 'List the matches and the pick; import nothing' },
  { name: 'repo', arg: 'OWNER/REPO', section: COMMON, describe: 'Repository (default: the current one)' },
  { name: 'include-comments', section: COMMON, describe: "Add the issue's comments to the document" },
  {
    name: 'generate-plan',
    section: PLAN,
    describe: 'Always generate an implementation plan (--no-generate-plan: never; default: when the completeness score is low)',
  },
  { name: 'plan-model', arg: 'MODEL', section: PLAN, describe: 'Model for plan generation' },
  {
    name: 'completeness-threshold',
    arg: '0-100',
    kind: 'int',
    max: 100,
    default: DEFAULT_COMPLETENESS_THRESHOLD,
    section: PLAN,
    invalid: (raw) => `--completeness-threshold must be an integer from 0 to 100, got "${raw.trim()}"`,
    describe: 'Score below which a plan is suggested',
  },
  { name: 'auto-approve', section: PLAN, describe: 'Accept the generated plan without asking' },
  {
    name: 'force',
    section: OTHER,
    describe: 'Import over an existing Ralph project: the files it replaces are first copied to .ralph_backup_<time>/ (without it, refused)',
  },
  {
    name: 'allow-root-agent',
    key: 'ALLOW_ROOT_AGENT',
    section: OTHER,
    describe: 'Run as root in a folder root owns: let the agent run as root (a throw-away machine only)',
  },
  { ...HELP_ROW, section: OTHER },
  { ...VERSION_ROW, section: OTHER },
  DEBUG_ROW,
];

const IMPORT_TABLE: FlagTable = { command: 'ralph-import', rows: IMPORT_FLAGS, unknownStyle: 'argument', fail: (problem) => usage(problem.message) };

export function parseImportArgs(argv: readonly string[]): ImportArgs {
  const { values, given, positional } = parseFlags(argv, IMPORT_TABLE);
  const text = (name: string) => values[name] as string | undefined;
  const labels = splitList(text('github-label'));
  if (given.has('github-label') && labels.length === 0) throw usage('--github-label needs at least one label');
  const generate = given.get('generate-plan') ?? [];
  if (generate.includes(true) && generate.includes(false)) throw usage('--generate-plan and --no-generate-plan cannot be combined');
  const issue = text('github-issue');
  const args: ImportArgs = {
    positional,
    githubIssue: issue === undefined ? undefined : Number(issue),
    query: {
      state: values['github-state'] as IssueQuery['state'],
      labels,
      search: text('github-search'),
      assignee: text('github-assignee'),
      milestone: text('github-milestone'),
      repo: text('repo'),
    },
    titlePattern: text('github-title'),
    hasFilters: FILTER_FLAGS.some((name) => given.has(name)),
    excludeLabels: splitList(text('exclude-label')),
    select: values.select as SelectionStrategy,
    dryRun: values['dry-run'] === true,
    includeComments: values['include-comments'] === true,
    generatePlan: given.has('generate-plan') ? (values['generate-plan'] as boolean) : undefined,
    planModel: text('plan-model'),
    completenessThreshold: values['completeness-threshold'] as number,
    autoApprove: values['auto-approve'] === true,
    force: values.force === true,
    allowRootAgent: values['allow-root-agent'] === true,
    help: values.help === true,
  };
  checkCombinations(args, { selectGiven: given.has('select'), excludeGiven: given.has('exclude-label'), thresholdGiven: given.has('completeness-threshold') });
  return args;
}

export function renderImportHelp(): string {
  return renderHelp({
    header: `Usage:
  ralph-import <source-file> [project-name]
  ralph-import --github-issue <N> [project-name]
  ralph-import <filters> [modifiers] [project-name]

Create a Ralph project from a requirements document (.md, .txt or .json) or a
GitHub issue. Claude Code turns the document into .ralph/PROMPT.md,
.ralph/fix_plan.md and .ralph/specs/requirements.md. The document is treated as
data, never as instructions. The project name defaults to the file name without
its extension (or the issue title).`,
    rows: IMPORT_FLAGS,
    footer: `Environment: CLAUDE_CODE_CMD (else .ralphrc, else claude on PATH or in
node_modules/.bin), CLAUDE_TIMEOUT_MINUTES (default ${CONFIG_SCHEMA.CLAUDE_TIMEOUT_MINUTES.default}),
ALLOW_ROOT_AGENT (as --allow-root-agent).
Run as root, the agent runs as the owner of the current folder (the new project
is given to that owner); a folder root owns is refused unless --allow-root-agent.
Exit codes: 0 imported (or dry run), 1 error (also: no source given).`,
  });
}

function checkCombinations(args: ImportArgs, given: { selectGiven: boolean; excludeGiven: boolean; thresholdGiven: boolean }): void {
  const modifiers = given.selectGiven || given.excludeGiven || args.dryRun;
  if (args.githubIssue !== undefined && (args.hasFilters || modifiers)) {
    throw usage(
      '--github-issue cannot be combined with filters (--github-search/-label/-title/-assignee/-milestone/-state) or modifiers (--exclude-label, --select, --dry-run)',
    );
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
