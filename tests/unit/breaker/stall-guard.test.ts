// The stall guard's own counts, held for one run: loops in a row without plan progress (an item
// completed with evidence, or a new best test result), reset by progress, stalled at the
// threshold; a test count that only goes back to where it was is no progress.

import { describe, expect, it } from 'vitest';
import { StallGuard, type StallEvidence } from '../../../lib/breaker/stall-guard.js';
import type { VerificationSnapshot } from '../../../lib/verify/verification.js';

const failing = (failed: number, passed = 10): VerificationSnapshot => ({
  status: 'failed',
  passed,
  failed,
  failures: Array.from({ length: failed }, (_, i) => ({ name: `t${i}` })),
});
const loop = (evidence: Partial<StallEvidence> = {}): StallEvidence => ({ itemsCompleted: 0, planOpen: true, latestTests: null, ...evidence });

describe('the stall guard', () => {
  it('counts loops without progress and stalls at the threshold; a completed item starts the count again', () => {
    const guard = new StallGuard();
    expect(guard.check(loop(), 3)).toEqual({ stalled: false, loops: 1 });
    expect(guard.check(loop(), 3)).toEqual({ stalled: false, loops: 2 });
    expect(guard.check(loop({ itemsCompleted: 1 }), 3)).toEqual({ stalled: false, loops: 0 });
    guard.check(loop(), 3);
    guard.check(loop(), 3);
    expect(guard.check(loop(), 3)).toEqual({ stalled: true, loops: 3 });
  });

  it('counts nothing without an open item, and never stalls at threshold 0', () => {
    const guard = new StallGuard();
    expect(guard.check(loop({ planOpen: false }), 1)).toEqual({ stalled: false, loops: 0 });
    expect(guard.check(loop(), 0)).toEqual({ stalled: false, loops: 1 });
  });

  it('a new best test result is progress; going back to an earlier count is not', () => {
    const guard = new StallGuard();
    const three = failing(3);
    expect(guard.check(loop({ latestTests: three }), 5).loops).toBe(1); // the first result sets the best
    expect(guard.check(loop({ latestTests: failing(2) }), 5).loops).toBe(0); // fewer failing than ever
    expect(guard.check(loop({ latestTests: failing(3) }), 5).loops).toBe(1); // back up
    expect(guard.check(loop({ latestTests: failing(2) }), 5).loops).toBe(2); // back to the best: not new
    expect(guard.check(loop({ latestTests: failing(2, 11) }), 5).loops).toBe(0); // more passing, no more failing
  });

  it('the same result seen again is judged once', () => {
    const guard = new StallGuard();
    const result = failing(3);
    guard.check(loop({ latestTests: failing(4) }), 5);
    expect(guard.check(loop({ latestTests: result }), 5).loops).toBe(0);
    expect(guard.check(loop({ latestTests: result }), 5).loops).toBe(1);
  });
});
