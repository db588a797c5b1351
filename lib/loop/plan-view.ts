// The run's view of the plan (fix_plan.md, or FIX_PLAN_FILE), parsed once where it may have
// changed: when a loop's guards run (the user may edit it between loops) and when the agent
// exits. The steps in between — the exit gate, the loop context, the session record, the
// GitHub comments — read it from memory; each used to parse the file again.

import type { PlanView } from '../core/fix-plan.js';
import { readPlanFile } from '../state/plan-file.js';
import type { LoopRuntime } from './runtime.js';

export function refreshPlanView(rt: LoopRuntime): PlanView | null {
  rt.plan = readPlanOrNone(rt);
  return rt.plan;
}

// A plan the agent turned into something unreadable (a directory) is no plan here; the next
// loop's file checks stop the run with a clear error.
function readPlanOrNone(rt: LoopRuntime): PlanView | null {
  try {
    return readPlanFile(rt.paths.fixPlan, rt.config.OPTIONAL_SECTIONS);
  } catch {
    return null;
  }
}
