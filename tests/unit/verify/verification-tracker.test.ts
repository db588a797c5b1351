import { describe, expect, it } from 'vitest';
import type { ExitGateResult } from '../../../lib/exit-gate/exit-gate.js';
import type { VerificationSnapshot } from '../../../lib/verify/verification.js';
import type { VerificationSummary } from '../../../lib/run-record/record-schema.js';
import {
  checkTrackedCompletion,
  initialVerificationTracker,
  isFresh,
  noteFilesChanged,
  shouldRunGateAfterLoop,
  trackerFromSummary,
  trackGateResult,
  trackLoopWithoutGate,
  verificationContextSection,
} from '../../../lib/verify/verification-tracker.js';

const failing: VerificationSnapshot = {
  status: 'failed',
  passed: 1,
  failed: 1,
  failures: [{ name: 'sum.spec.ts > sum > adds two numbers', message: 'expected -1 to be 3' }],
};
const passing: VerificationSnapshot = { status: 'passed', passed: 2, failed: 0, failures: [] };
const completed: ExitGateResult = { kind: 'exit', reason: 'project_complete', outcome: 'completed' };

describe('verification tracker', () => {
  it('runs the gate only after a loop that changed files, when there is a command', () => {
    expect(shouldRunGateAfterLoop(2, 1)).toBe(true);
    expect(shouldRunGateAfterLoop(0, 1)).toBe(false);
    expect(shouldRunGateAfterLoop(2, 0)).toBe(false);
  });

  it('the same failures three loops running trip the breaker with the test named', () => {
    let state = initialVerificationTracker();
    const first = trackGateResult(state, 1, failing, 3);
    expect(first).toMatchObject({ outcome: 'stuck', tripped: false });
    const second = trackGateResult(first.state, 2, failing, 3);
    expect(second.tripped).toBe(false);
    // Loop 3 claims completion without changing anything: the failing set is still the same.
    const third = trackLoopWithoutGate(second.state, 3, 3)!;
    expect(third.tripped).toBe(true);
    expect(third.reason).toBe('Same failing tests in 3 consecutive loops: sum.spec.ts > sum > adds two numbers');
    state = third.state;
    expect(trackGateResult(state, 4, passing, 3)).toMatchObject({ outcome: 'tests-passing', tripped: false });
  });

  it('counts a loop once when its gate runs again (a completion claim re-checks it)', () => {
    const first = trackGateResult(initialVerificationTracker(), 1, failing, 3);
    const second = trackGateResult(first.state, 2, failing, 3);
    const recheck = trackGateResult(second.state, 2, failing, 3);
    expect(recheck.tripped).toBe(false);
    expect(recheck.state.sameFailures.count).toBe(2);
    const third = trackLoopWithoutGate(recheck.state, 3, 3)!;
    expect(third.reason).toMatch(/^Same failing tests in 3 consecutive loops/);
    expect(trackGateResult(third.state, 3, failing, 3).state.sameFailures.count).toBe(3);
  });

  it('a loop without a gate counts nothing when there is no failing result', () => {
    expect(trackLoopWithoutGate(initialVerificationTracker(), 1, 3)).toBeNull();
    expect(trackLoopWithoutGate(trackGateResult(initialVerificationTracker(), 1, passing, 3).state, 2, 3)).toBeNull();
  });

  it('blocks completion while the fresh result fails, asks for a run when it is stale', () => {
    let state = initialVerificationTracker();
    expect(checkTrackedCompletion(state, completed, true)).toEqual({ kind: 'verify' });
    state = trackGateResult(noteFilesChanged(state, 1, 3), 1, failing, 3).state;
    expect(isFresh(state)).toBe(true);
    expect(checkTrackedCompletion(state, completed, true).kind).toBe('blocked');
    state = noteFilesChanged(state, 2, 1);
    expect(isFresh(state)).toBe(false);
    expect(checkTrackedCompletion(state, completed, true)).toEqual({ kind: 'verify' });
    state = trackGateResult(state, 2, passing, 3).state;
    expect(checkTrackedCompletion(state, completed, true)).toEqual({ kind: 'proceed' });
    expect(noteFilesChanged(state, 3, 0)).toBe(state);
  });

  it('gives the failing tests for the next context, nothing once passing', () => {
    const failed = trackGateResult(initialVerificationTracker(), 1, failing, 3).state;
    expect(verificationContextSection(failed, 1000)).toContain('- sum.spec.ts > sum > adds two numbers: expected -1 to be 3');
    expect(verificationContextSection(trackGateResult(failed, 2, passing, 3).state, 1000)).toBe('');
    expect(verificationContextSection(initialVerificationTracker(), 1000)).toBe('');
  });

  it('continues a resumed run from its record: the count goes on, the result is re-checked before completion', () => {
    // The run record's own summary type: what the record stores is what the tracker reads.
    const summary: VerificationSummary = {
      loop: 2,
      at: '2026-11-30T03:10:00.000Z',
      status: 'failed',
      passed: 1,
      failed: 1,
      skipped: 0,
      duration_ms: 900,
      failures: [{ name: 'sum.spec.ts > sum > adds two numbers', message: 'x' }],
      failures_omitted: 0,
      commands: [{ command: 'npm test', role: 'test', status: 'failed' }],
      signature: trackGateResult(initialVerificationTracker(), 1, failing, 3).state.sameFailures.signature,
      same_failures_count: 2,
    };
    const state = trackerFromSummary(summary);
    expect(isFresh(state)).toBe(false);
    expect(checkTrackedCompletion(state, completed, true)).toEqual({ kind: 'verify' });
    expect(trackGateResult(state, 3, failing, 3)).toMatchObject({
      tripped: true,
      reason: 'Same failing tests in 3 consecutive loops: sum.spec.ts > sum > adds two numbers',
    });
    expect(trackerFromSummary(null)).toEqual(initialVerificationTracker());
  });
});
