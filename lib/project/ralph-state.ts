// Is a directory already a Ralph project? (the Bash tool's check_existing_ralph): `complete`
// when .ralph/ holds PROMPT.md, fix_plan.md and AGENT.md and the project has its .ralphrc,
// `partial` when some are missing. Unlike the Bash tool .ralphrc counts: `ralph` refuses to
// start without it, so a project lacking it is not enabled, and ralph-enable restores it.

import { existsSync } from 'node:fs';
import { ralphPaths } from '../state/paths.js';

export type RalphInstallState = 'none' | 'partial' | 'complete';

export interface RalphStateResult {
  state: RalphInstallState;
  /** Missing control files, relative to the project (e.g. `.ralph/AGENT.md`). */
  missing: string[];
}

export const CONTROL_FILES = ['.ralph/PROMPT.md', '.ralph/fix_plan.md', '.ralph/AGENT.md'] as const;

export function checkExistingRalph(projectDir: string): RalphStateResult {
  const paths = ralphPaths(projectDir);
  if (!existsSync(paths.ralphDir)) return { state: 'none', missing: [...CONTROL_FILES] };
  const present: Record<(typeof CONTROL_FILES)[number], boolean> = {
    '.ralph/PROMPT.md': existsSync(paths.prompt),
    '.ralph/fix_plan.md': existsSync(paths.fixPlan),
    '.ralph/AGENT.md': existsSync(paths.agent),
  };
  const missing: string[] = CONTROL_FILES.filter((file) => !present[file]);
  if (missing.length === CONTROL_FILES.length) return { state: 'none', missing };
  if (!existsSync(paths.ralphrc)) missing.push('.ralphrc');
  return { state: missing.length === 0 ? 'complete' : 'partial', missing };
}
