// User-facing text of ralph-enable (the wizard) and the per-file report shared with
// ralph-enable-ci and ralph-setup.

import type { ProjectFileOutcome } from '../project/enable-project.js';
import { DEFAULT_TASK_LABEL, DEFAULT_TASK_LIMIT } from './task-import-defaults.js';

/** `[SUCCESS] Created .ralph/PROMPT.md`, `[SKIP] README.md already exists (kept; …)`, … */
export function formatFileOutcomes(files: Readonly<Record<string, ProjectFileOutcome>>, backup?: { dir: string; files: readonly string[] }): string[] {
  const lines: string[] = [];
  for (const [file, outcome] of Object.entries(files)) {
    if (outcome === 'created') lines.push(`[SUCCESS] Created ${file}`);
    else if (outcome === 'overwritten') lines.push(`[SUCCESS] Overwrote ${file} (--force; the old one is backed up)`);
    else if (outcome === 'merged') lines.push(`[SUCCESS] Added Ralph's entries to ${file} (your lines are kept)`);
    else if (outcome === 'unchanged') lines.push(`[SKIP] ${file} is already up to date`);
    else lines.push(`[SKIP] ${file} already exists (kept; --force replaces it, keeping a backup)`);
  }
  if (backup) lines.push(`[INFO] Backup of the replaced files (${backup.files.join(', ')}): ${backup.dir}`);
  return lines;
}

export const WIZARD_BANNER = 'Ralph Enable - Existing Project Wizard';

export function phaseTitle(phase: number, title: string): string {
  return `\n== Phase ${phase} of 5: ${title} ==`;
}

export const ENABLE_HELP = `Usage: ralph-enable [options]

Enable Ralph in an existing project, step by step: detect the project, choose where tasks
come from, confirm the settings, write the files, verify them.

Options:
  --from <source>      Task source: beads, github or prd (skips the source question)
  --prd <file>         PRD file for --from prd
  --label <label>      GitHub label to import (default: ${DEFAULT_TASK_LABEL})
  --limit <n>          Maximum tasks to import, 0 = all (default: ${DEFAULT_TASK_LIMIT})
  --force              Replace existing Ralph files, backing each up to
                       .ralph_backup_<time>/ (files you added are kept)
  --skip-tasks         Start with the default task list
  --non-interactive    Ask nothing; use detected values and defaults
  -h, --help           Show this help
  --version            Show the version

Exit codes: 0 enabled, 1 error, 2 already enabled (use --force), 3 invalid arguments.
Questions are printed on stderr; answers are read from stdin.
`;

export const NEXT_STEPS = [
  'Next steps:',
  '  1. Review .ralph/PROMPT.md and .ralph/fix_plan.md',
  '  2. Put specifications in .ralph/specs/',
  '  3. Start the loop: ralph --monitor',
];
