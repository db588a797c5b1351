// User-facing text of ralph-setup and ralph-migrate.

import { quoteForShell } from '../monitor/shell-quote.js';
import { FALLBACK_IDENTITY } from '../project/initial-commit.js';

export const SETUP_HELP = `Usage: ralph-setup [project-name] [--force]

Create a new Ralph project: the directory (default: my-project), src/, the .ralph/ tree with
PROMPT.md, fix_plan.md and AGENT.md, README.md, .gitignore, .ralphrc, and a first git commit.
An existing README.md, .gitignore or .ralphrc is kept. Without a git identity the first commit
is made as "Ralph Setup <ralph-setup@localhost>" (nothing is written to your git config) and a
warning says how to set yours.

Options:
  --force       Regenerate existing files (README.md, .ralphrc, .ralph/*), keeping a copy of
                each replaced file in .ralph_backup_<time>/
  -h, --help    Show this help
  --version     Show the version
`;

/** The next steps after ralph-setup; the name is quoted for the shell, as it would be typed. */
export function setupNextSteps(projectName: string): string[] {
  return [
    'Next steps:',
    `  1. cd ${quoteForShell(projectName)}`,
    '  2. Describe the work in .ralph/PROMPT.md and .ralph/specs/',
    '  3. List the tasks in .ralph/fix_plan.md',
    '  4. Start the loop: ralph --monitor',
  ];
}

export const FALLBACK_IDENTITY_WARNING = [
  `Warning: git has no user.name/user.email configured; the initial commit was made as "${FALLBACK_IDENTITY.name} <${FALLBACK_IDENTITY.email}>".`,
  '  Set your identity (git config --global user.name "…"; git config --global user.email "…")',
  '  and, if you like, re-author the commit: git commit --amend --reset-author --no-edit',
].join('\n');

export const MIGRATE_HELP = `Usage: ralph-migrate [project-dir]

Move a Ralph project from the old flat layout (PROMPT.md, @fix_plan.md, @AGENT.md, specs/, logs/
in the project root) into .ralph/. Everything moved is first copied to .ralph_backup_<time>/.
Running it again on a migrated project changes nothing.

Options:
  -h, --help    Show this help
  --version     Show the version
`;
