// The stall guard above the circuit breaker: new content is necessary for progress, not
// sufficient. A loop makes plan progress when it completed a plan item that was open at its
// start, with measured new content (plan-memory.ts), or made a failing test pass (the
// verification gate's failures went down). CB_NO_PLAN_PROGRESS_THRESHOLD loops in a row
// without either halt the run as `stalled`. The count lives in memory, never in a file the
// agent can write.

import type { VerificationSnapshot } from '../verify/verification.js';
import type { Run } from '../loop/run.js';

export interface StallCheck {
  stalled: boolean;
  loops: number;
}

/** Counts the loop just finished; `failingBefore` is the gate's failure count when it started. */
export function checkStall(run: Run, failingBefore: number | null): StallCheck {
  const threshold = run.config.CB_NO_PLAN_PROGRESS_THRESHOLD;
  const completed = run.state.planItemsCompleted ?? 0;
  run.state.planItemsCompleted = 0;
  const failingAfter = failingCount(run.state.verify.latest);
  const fixedTests = failingBefore !== null && failingAfter !== null && failingAfter < failingBefore;
  // With no open item remembered there is no plan to measure progress against.
  const planOpen = (run.state.planMemory?.open.length ?? 0) > 0;
  run.state.loopsWithoutPlanProgress = completed > 0 || fixedTests || !planOpen ? 0 : (run.state.loopsWithoutPlanProgress ?? 0) + 1;
  return { stalled: threshold > 0 && run.state.loopsWithoutPlanProgress >= threshold, loops: run.state.loopsWithoutPlanProgress };
}

export function failingCount(snapshot: VerificationSnapshot | null): number | null {
  if (!snapshot) return null;
  return snapshot.status === 'passed' ? 0 : Math.max(snapshot.failed, snapshot.failures.length, 1);
}

export function stallMessage(loops: number): string {
  return `Stalled: ${loops} loops in a row completed no fix_plan.md item and fixed no failing test, although files changed. ` +
    'Check that the open items are doable and clear (split them, or tick what is done), then run ralph again; ' +
    'raise CB_NO_PLAN_PROGRESS_THRESHOLD if items really take this many loops';
}
