// User-facing text of ralph-setup and ralph-migrate (their --help is rendered from their flag
// tables, bootstrap-args.ts).

import { quoteForShell } from '../../text/shell-quote.js';
import { FALLBACK_IDENTITY } from '../../project/initial-commit.js';

/** The next steps after ralph-setup; the name is quoted for the shell, as it would be typed. */
export function setupNextSteps(projectName: string): string[] {
  return [
    'Next steps:',
    `  1. cd ${quoteForShell(projectName)}`,
    '  2. Describe the work in .ralph/PROMPT.md and .ralph/specs/',
    '  3. List the tasks in .ralph/fix_plan.md',
    '  4. Check what the run needs, without an agent call: ralph --doctor',
    '  5. Start the loop: ralph --monitor',
  ];
}

export const FALLBACK_IDENTITY_WARNING = [
  `Warning: git has no user.name/user.email configured; the initial commit was made as "${FALLBACK_IDENTITY.name} <${FALLBACK_IDENTITY.email}>".`,
  '  Set your identity (git config --global user.name "…"; git config --global user.email "…")',
  '  and, if you like, re-author the commit: git commit --amend --reset-author --no-edit',
].join('\n');
