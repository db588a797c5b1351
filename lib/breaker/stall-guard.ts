// The stall guard above the circuit breaker: new content is necessary for progress, not
// sufficient. A loop makes plan progress when it completed a plan item that was open at its
// start, with measured evidence (plan-memory.ts), or when the verification gate's result reached
// a new best for the run: fewer failing tests than ever, or more passing tests than ever with no
// more failing (a large item done part by part, each part with its tests). A count that only
// goes back to where it was (3, 2, 3, 2 …) is no progress. CB_NO_PLAN_PROGRESS_THRESHOLD loops
// in a row without either halt the run as `stalled`. The counts live in memory, never in a file
// the agent can write.

import type { VerificationSnapshot } from '../verify/verification.js';

/** The best gate result of a run so far (the stall guard's measure), and the result last compared with it. */
interface TestsBest {
  failing: number;
  passing: number;
  seen: VerificationSnapshot;
}

export interface StallCheck {
  stalled: boolean;
  loops: number;
}

/** What a productive loop left for the stall guard to judge. */
export interface StallEvidence {
  /** Plan items completed with measured evidence since the guard last looked (plan-view.ts). */
  itemsCompleted: number;
  /** Open items remain in the plan's memory: with none there is no plan to measure progress against. */
  planOpen: boolean;
  /** The verification gate's latest result (null: none yet). */
  latestTests: VerificationSnapshot | null;
}

/** The stall guard's counts for one run: loops in a row without plan progress, and the best test result so far. */
export class StallGuard {
  #loops = 0;
  #best: TestsBest | undefined;

  /** Counts the loop just finished; stalled at `threshold` loops in a row without progress (0: never). */
  check(evidence: StallEvidence, threshold: number): StallCheck {
    const testsMoved = this.#noteTestsBest(evidence.latestTests);
    this.#loops = evidence.itemsCompleted > 0 || testsMoved || !evidence.planOpen ? 0 : this.#loops + 1;
    return { stalled: threshold > 0 && this.#loops >= threshold, loops: this.#loops };
  }

  /** Whether the gate's latest result, when new, is the run's best yet; it becomes the best. */
  #noteTestsBest(latest: VerificationSnapshot | null): boolean {
    const best = this.#best;
    if (!latest || latest === best?.seen || latest.status === 'error' || latest.status === 'not-verified') return false;
    const failing = failingForStall(latest) ?? 0;
    const passing = latest.passed;
    const moved = best !== undefined && (failing < best.failing || (failing <= best.failing && passing > best.passing));
    this.#best =
      best === undefined
        ? { failing, passing, seen: latest }
        : { failing: Math.min(failing, best.failing), passing: Math.max(passing, best.passing), seen: latest };
    return moved;
  }
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
