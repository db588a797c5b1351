// The flag tables of the bootstrap commands (setup, migrate, enable, enable-ci; import's is in
// import-args.ts): each command's flags are rows of one table, and its parsing, checks, errors
// and --help come from them (flag-table.ts). Unknown flags are named as yargs named them
// (`Unknown argument: nope`), which scripts and tests read; the last of a repeated flag wins.

import { RalphError } from '../errors.js';
import { DEFAULT_TASK_LABEL, DEFAULT_TASK_LIMIT } from './task-import-defaults.js';
import { DEBUG_ROW, HELP_ROW, parseFlags, renderHelp, VERSION_ROW, type FlagProblem, type FlagRow, type FlagTable, type ParsedFlags } from './flag-table.js';

/** A usage problem of ralph-enable-ci, which reports it in its own format (text or JSON, exit 3). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A usage problem as a RalphError: `Error: <message>` and `hint: run <command> --help`. */
function usageError(command: string, exitCode?: number) {
  return (problem: FlagProblem) =>
    new RalphError('usage', problem.message, { exitCode, details: problem.details, hint: problem.hint ?? `run ${command} --help` });
}

const FORCE_BACKUP = 'Replace existing Ralph files, backing each up to .ralph_backup_<time>/ (files you added are kept)';
const limitMessage = (raw: string) => `--limit must be a non-negative integer, got "${raw.trim()}"`;
const LIMIT_ROW: FlagRow = {
  name: 'limit',
  arg: 'N',
  kind: 'int',
  default: DEFAULT_TASK_LIMIT,
  invalid: limitMessage,
  describe: 'Maximum tasks to import, 0 = all',
};
const LABEL_ROW: FlagRow = { name: 'label', arg: 'LABEL', default: DEFAULT_TASK_LABEL, key: 'GITHUB_TASK_LABEL', describe: 'GitHub label to import' };

// ---- ralph-setup ----

export const SETUP_FLAGS: readonly FlagRow[] = [
  { name: 'force', describe: 'Regenerate existing files (README.md, .ralphrc, .ralph/*), keeping a copy of each replaced file in .ralph_backup_<time>/' },
  HELP_ROW,
  VERSION_ROW,
  DEBUG_ROW,
];

export const SETUP_TABLE: FlagTable = { command: 'ralph-setup', rows: SETUP_FLAGS, unknownStyle: 'argument', fail: usageError('ralph-setup') };

export interface SetupArgs {
  name: string;
  force: boolean;
}

export function parseSetupArgs(argv: readonly string[]): SetupArgs | 'help' {
  const { values, positional } = parseFlags(argv, SETUP_TABLE);
  if (values.help) return 'help';
  if (positional.length > 1) throw SETUP_TABLE.fail({ message: `expected one project name, got ${positional.length}` });
  const name = positional[0] ?? 'my-project';
  if (name.trim() === '') throw new RalphError('usage', 'the project name is empty');
  return { name, force: Boolean(values.force) };
}

export function renderSetupHelp(): string {
  return renderHelp({
    header: `Usage: ralph-setup [project-name] [--force]

Create a new Ralph project: the directory (default: my-project), src/, the
.ralph/ tree with PROMPT.md, fix_plan.md and AGENT.md, README.md, .gitignore,
.ralphrc, and a first git commit. An existing README.md, .gitignore or .ralphrc
is kept. Without a git identity the first commit is made as "Ralph Setup
<ralph-setup@localhost>" (nothing is written to your git config) and a warning
says how to set yours.`,
    rows: SETUP_FLAGS,
  });
}

// ---- ralph-migrate ----

export const MIGRATE_FLAGS: readonly FlagRow[] = [HELP_ROW, VERSION_ROW, DEBUG_ROW];

export const MIGRATE_TABLE: FlagTable = { command: 'ralph-migrate', rows: MIGRATE_FLAGS, unknownStyle: 'argument', fail: usageError('ralph-migrate') };

/** The project directory to migrate (default: here), or 'help'. */
export function parseMigrateArgs(argv: readonly string[]): { dir: string } | 'help' {
  const { values, positional } = parseFlags(argv, MIGRATE_TABLE);
  if (values.help) return 'help';
  if (positional.length > 1) throw MIGRATE_TABLE.fail({ message: `expected one directory, got ${positional.length}` });
  return { dir: positional[0] ?? '.' };
}

export function renderMigrateHelp(): string {
  return renderHelp({
    header: `Usage: ralph-migrate [project-dir]

Move a Ralph project from the old flat layout (PROMPT.md, @fix_plan.md,
@AGENT.md, specs/, logs/ in the project root) into .ralph/. Everything moved is
first copied to .ralph_backup_<time>/. Running it again on a migrated project
changes nothing.`,
    rows: MIGRATE_FLAGS,
  });
}

// ---- ralph-enable ----

export const ENABLE_FLAGS: readonly FlagRow[] = [
  { name: 'from', arg: 'SOURCE', choices: ['beads', 'github', 'prd'], describe: 'Task source: beads, github or prd (skips the source question)' },
  { name: 'prd', arg: 'FILE', describe: 'PRD file for --from prd' },
  LABEL_ROW,
  LIMIT_ROW,
  { name: 'force', describe: FORCE_BACKUP },
  { name: 'skip-tasks', describe: 'Import no task: start with an empty plan' },
  { name: 'non-interactive', describe: 'Ask nothing; use detected values and defaults' },
  HELP_ROW,
  VERSION_ROW,
];

/** Invalid arguments exit 3 (the Bash tool's code). */
export const ENABLE_TABLE: FlagTable = { command: 'ralph-enable', rows: ENABLE_FLAGS, unknownStyle: 'argument', fail: usageError('ralph-enable', 3) };

export interface EnableArgs {
  from?: 'beads' | 'github' | 'prd';
  prd?: string;
  /** Given on the command line (else the wizard asks, or the default is used). */
  label?: string;
  limit: number;
  force: boolean;
  skipTasks: boolean;
  nonInteractive: boolean;
}

export function parseEnableArgs(argv: readonly string[]): EnableArgs | 'help' | 'version' {
  const parsed = parseFlags(argv, ENABLE_TABLE);
  const { values } = parsed;
  if (values.help) return 'help';
  if (values.version) return 'version';
  noPositionals(parsed, ENABLE_TABLE);
  return {
    from: values.from as EnableArgs['from'],
    prd: values.prd as string | undefined,
    label: parsed.given.has('label') ? (values.label as string) : undefined,
    limit: values.limit as number,
    force: Boolean(values.force),
    skipTasks: Boolean(values['skip-tasks']),
    nonInteractive: Boolean(values['non-interactive']),
  };
}

export function renderEnableHelp(): string {
  return renderHelp({
    header: `Usage: ralph-enable [options]

Enable Ralph in an existing project, step by step: detect the project, choose
where tasks come from, confirm the settings, write the files, verify them.`,
    rows: ENABLE_FLAGS,
    footer: `Exit codes: 0 enabled, 1 error, 2 already enabled (use --force), 3 invalid
arguments. Questions are printed on stderr; answers are read from stdin.`,
  });
}

// ---- ralph-enable-ci ----

export const ENABLE_CI_FLAGS: readonly FlagRow[] = [
  {
    name: 'from',
    arg: 'SOURCE',
    choices: ['beads', 'github', 'prd', 'none'],
    describe: 'Task source: beads, github, prd or none (default: detected; beads > github > first PRD file > none)',
  },
  { name: 'prd', arg: 'FILE', describe: 'PRD file for --from prd' },
  LABEL_ROW,
  LIMIT_ROW,
  { name: 'project-name', arg: 'NAME', describe: 'Override the detected project name' },
  { name: 'project-type', arg: 'TYPE', describe: 'Override the detected project type' },
  { name: 'force', describe: FORCE_BACKUP },
  { name: 'json', describe: 'Print the result as JSON on stdout' },
  { name: 'jq', arg: 'FILTER', describe: 'Filter the JSON with a jq expression (implies --json; built in, no jq needed)' },
  { name: 'quiet', describe: 'Print nothing but errors (and the JSON with --json)' },
  HELP_ROW,
  { ...VERSION_ROW, describe: 'Show the version (as JSON after --json)' },
];

export const ENABLE_CI_TABLE: FlagTable = {
  command: 'ralph-enable-ci',
  rows: ENABLE_CI_FLAGS,
  unknownStyle: 'argument',
  fail: (problem) => new UsageError(problem.message),
};

export interface EnableCiArgs {
  from?: 'beads' | 'github' | 'prd' | 'none';
  prd?: string;
  label: string;
  limit: number;
  projectName?: string;
  projectType?: string;
  force: boolean;
  json: boolean;
  /** --jq: filter the --json output (implies --json). */
  jq?: string;
  quiet: boolean;
}

/** Throws UsageError (ralph-enable-ci reports it as text or JSON, exit 3). */
export function parseEnableCiArgs(argv: readonly string[]): EnableCiArgs | 'help' | 'version' {
  const parsed = parseFlags(argv, ENABLE_CI_TABLE);
  const { values } = parsed;
  if (values.help) return 'help';
  if (values.version) return 'version';
  noPositionals(parsed, ENABLE_CI_TABLE);
  const jq = values.jq as string | undefined;
  return {
    from: values.from as EnableCiArgs['from'],
    prd: values.prd as string | undefined,
    label: values.label as string,
    limit: values.limit as number,
    projectName: values['project-name'] as string | undefined,
    projectType: values['project-type'] as string | undefined,
    force: Boolean(values.force),
    json: Boolean(values.json) || jq !== undefined,
    jq,
    quiet: Boolean(values.quiet),
  };
}

export function renderEnableCiHelp(): string {
  return renderHelp({
    header: 'Usage: ralph-enable-ci [options]\n\nEnable Ralph in the current project without prompts (for CI and scripts).',
    rows: ENABLE_CI_FLAGS,
    footer: `Exit Codes:
  0  Ralph enabled
  1  Error
  2  Already enabled (use --force)
  3  Invalid arguments
  4  File not found (e.g. the --prd file)
  5  Dependency missing (e.g. gh or bd for an explicit --from)

JSON output (--json), on success (stdout):
  {"success": true, "project_name": "...", "project_type": "...",
   "files_created": [".ralph/PROMPT.md", ".ralph/fix_plan.md", ".ralph/AGENT.md", ".ralphrc"],
   "tasks_imported": 0, "message": "Ralph enabled successfully",
   "test_command": "npm test", "package_manager": "npm"}   (null when none was detected)
Already enabled (stdout, exit 2):
  {"success": false, "code": 2, "message": "Ralph already enabled. Use --force to override."}
Other errors (stderr; code is the exit status):
  {"error": "<message>", "code": 4}`,
  });
}

function noPositionals(parsed: ParsedFlags, table: FlagTable): void {
  if (parsed.positional.length > 0) throw table.fail({ message: `unexpected argument: ${parsed.positional.join(' ')}` });
}
