// Reads the project's plan file (FIX_PLAN_FILE, default .ralph/fix_plan.md) into the one plan
// view every reader uses. An absent file is null: no plan, not an empty one.

import { parseFixPlan, type PlanView } from './fix-plan.js';
import { readRegularFile } from '../state/control-file.js';

export function readPlanFile(path: string, optionalSections: string[]): PlanView | null {
  // A FIFO or device in its place is a RalphError naming it, not a read that never ends.
  const text = readRegularFile(path);
  return text === undefined ? null : parseFixPlan(text, optionalSections);
}
