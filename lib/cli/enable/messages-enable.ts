// User-facing text of ralph-enable (the wizard) and the per-file report shared with
// ralph-enable-ci and ralph-setup.

import type { ProjectFileOutcome } from '../../project/enable-project.js';

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

export const NEXT_STEPS = [
  'Next steps:',
  '  1. Write your tasks in .ralph/fix_plan.md (one "- [ ] task" line each, under ## Tasks) and review .ralph/PROMPT.md',
  '  2. Put specifications in .ralph/specs/',
  '  3. Check what the run needs, without an agent call: ralph --doctor',
  '  4. Start the loop: ralph --monitor',
];
