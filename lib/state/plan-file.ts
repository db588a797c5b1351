// Reads the project's plan file (FIX_PLAN_FILE, default .ralph/fix_plan.md) into the one plan
// view every reader uses. An absent file is null: no plan, not an empty one.

import { readFileSync } from 'node:fs';
import { parseFixPlan, type PlanView } from '../core/fix-plan.js';

export function readPlanFile(path: string, optionalSections: string[]): PlanView | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return parseFixPlan(text, optionalSections);
}
