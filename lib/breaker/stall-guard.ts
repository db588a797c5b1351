// The stall guard above the circuit breaker: new content is necessary for progress, not
// sufficient. A loop makes plan progress when it completed a plan item that was open at its
// start, with measured evidence (plan-memory.ts), or when the verification gate's result reached
// a new best for the run: fewer failing tests than ever, or more passing tests than ever with no
// more failing (a large item done part by part, each part with its tests). A count that only
// goes back to where it was (3, 2, 3, 2 …) is no progress. CB_NO_PLAN_PROGRESS_THRESHOLD loops
// in a row without either halt the run as `stalled`. The counts live in memory, never in a file
// the agent can write.

import type { VerificationSnapshot } from '../verify/verification.js';
import type { Run } from '../loop/run.js';

export interface StallCheck {
  stalled: boolean;
  loops: number;
}

/** Counts the loop just finished. */
export function checkStall(run: Run): StallCheck {
  const threshold = run.config.CB_NO_PLAN_PROGRESS_THRESHOLD;
  const completed = run.state.planItemsCompleted ?? 0;
  run.state.planItemsCompleted = 0;
  const testsMoved = noteTestsBest(run);
  // With no open item remembered there is no plan to measure progress against.
  const planOpen = (run.state.planMemory?.open.length ?? 0) > 0;
  run.state.loopsWithoutPlanProgress = completed > 0 || testsMoved || !planOpen ? 0 : (run.state.loopsWithoutPlanProgress ?? 0) + 1;
  return { stalled: threshold > 0 && run.state.loopsWithoutPlanProgress >= threshold, loops: run.state.loopsWithoutPlanProgress };
}

/** Whether the gate's latest result, when new, is the run's best yet; it becomes the best. */
function noteTestsBest(run: Run): boolean {
  const latest = run.state.verify.latest;
  const best = run.state.testsBest;
  if (!latest || latest === best?.seen || latest.status === 'error' || latest.status === 'not-verified') return false;
  const failing = failingForStall(latest) ?? 0;
  const passing = latest.passed;
  const moved = best !== undefined && (failing < best.failing || (failing <= best.failing && passing > best.passing));
  run.state.testsBest =
    best === undefined
      ? { failing, passing, seen: latest }
      : { failing: Math.min(failing, best.failing), passing: Math.max(passing, best.passing), seen: latest };
  return moved;
}

export function failingForStall(snapshot: VerificationSnapshot | null): number | null {
  if (!snapshot) return null;
  return snapshot.status === 'passed' ? 0 : Math.max(snapshot.failed, snapshot.failures.length, 1);
}

export function stallMessage(loops: number): string {
  return (
    `Stalled: ${loops} loops in a row completed no fix_plan.md item and fixed no failing test, although files changed. ` +
    'Check that the open items are doable and clear (split them, or tick what is done), then run ralph again; ' +
    'raise CB_NO_PLAN_PROGRESS_THRESHOLD if items really take this many loops'
  );
}
