import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialBreakerState, openBreakerForSameFailures } from '../../../lib/breaker/circuit-breaker.js';
import type { ExitGateResult } from '../../../lib/exit-gate/exit-gate.js';
import {
  checkCompletion,
  classifyVerification,
  formatFailuresForContext,
  formatSameFailuresReason,
  initialSameFailures,
  sameFailuresTripped,
  type VerificationSnapshot,
} from '../../../lib/verify/verification.js';
import { failingSignature, nextSameFailures } from '../../../lib/verify/same-failures.js';

function failing(names: string[], passed = 1, extra: Partial<VerificationSnapshot> = {}): VerificationSnapshot {
  return { status: 'failed', passed, failed: names.length, failures: names.map((name) => ({ name, message: `${name} broke` })), ...extra };
}
const passing: VerificationSnapshot = { status: 'passed', passed: 5, failed: 0, failures: [] };
const errored: VerificationSnapshot = { status: 'error', passed: 0, failed: 0, failures: [{ name: 'npm test', message: 'timed out after 10m' }] };

describe('classifyVerification', () => {
  it.each([
    ['a pass', failing(['a']), passing, 'tests-passing'],
    ['an error', passing, errored, 'error'],
    ['fewer failures', failing(['a', 'b']), failing(['a']), 'improving'],
    ['more failures', failing(['a']), failing(['a', 'b']), 'regressing'],
    ['failing after passing', passing, failing(['a']), 'regressing'],
    ['the same number of failures', failing(['a']), failing(['b']), 'stuck'],
    ['the same failures but more tests passing', failing(['a'], 3), failing(['a'], 5), 'improving'],
    ['no earlier result', undefined, failing(['a']), 'stuck'],
    ['an earlier error', errored, failing(['a']), 'stuck'],
  ] as const)('%s', (_label, previous, current, expected) => {
    expect(classifyVerification(previous, current)).toBe(expected);
  });

  it('counts omitted failures too', () => {
    expect(classifyVerification(failing(['a'], 1, { failuresOmitted: 5 }), failing(['a', 'b']))).toBe('improving');
  });
});

describe('failingSignature', () => {
  it('is the same for the same set in any order and null when passing', () => {
    expect(failingSignature(failing(['a', 'b']))).toBe(failingSignature(failing(['b', 'a', 'a'])));
    expect(failingSignature(failing(['a']))).not.toBe(failingSignature(failing(['a', 'b'])));
    expect(failingSignature(passing)).toBeNull();
    expect(failingSignature(errored)).not.toBe(failingSignature({ ...errored, status: 'failed' }));
  });

  it('counts the failures a runner counted but did not name: 3, 2, 1 failing are three different sets', () => {
    // A summary line's count; the gate names only the command.
    const counted = (failed: number): VerificationSnapshot => ({ status: 'failed', passed: 5 - failed, failed, failures: [{ name: 'node test.js' }] });
    const signatures = new Set([3, 2, 1].map((n) => failingSignature(counted(n))));
    expect(signatures.size).toBe(3);
    expect(failingSignature(counted(2))).toBe(failingSignature(counted(2)));
  });

  it('ignores order (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { minLength: 1, maxLength: 8 }), (names) => {
        expect(failingSignature(failing(names))).toBe(failingSignature(failing([...names].reverse())));
      }),
    );
  });
});

describe('same failures', () => {
  it('counts consecutive loops with the same failing set and trips at the threshold', () => {
    let state = initialSameFailures();
    state = nextSameFailures(state, failing(['sum.spec.ts > sum > adds two numbers']));
    state = nextSameFailures(state, failing(['sum.spec.ts > sum > adds two numbers']));
    expect(state.count).toBe(2);
    expect(sameFailuresTripped(state, 3)).toBe(false);
    state = nextSameFailures(state, failing(['sum.spec.ts > sum > adds two numbers']));
    expect(sameFailuresTripped(state, 3)).toBe(true);
    expect(formatSameFailuresReason(state)).toBe('Same failing tests in 3 consecutive loops: sum.spec.ts > sum > adds two numbers');
  });

  it('starts again on a different set and resets on a pass', () => {
    let state = nextSameFailures(nextSameFailures(initialSameFailures(), failing(['a'])), failing(['a']));
    state = nextSameFailures(state, failing(['a', 'b']));
    expect(state.count).toBe(1);
    state = nextSameFailures(state, passing);
    expect(state).toEqual(initialSameFailures());
    expect(sameFailuresTripped(state, 1)).toBe(false);
  });

  it('a threshold of 0 never trips', () => {
    const state = nextSameFailures(initialSameFailures(), failing(['a']));
    expect(sameFailuresTripped(state, 0)).toBe(false);
  });

  it('names up to N tests in the reason and says how many more', () => {
    const names = ['t1', 't2', 't3', 't4', 't5'];
    let state = initialSameFailures();
    for (let i = 0; i < 3; i++) state = nextSameFailures(state, failing(names, 0, { failed: 12 }));
    expect(formatSameFailuresReason(state)).toBe('Same failing tests in 3 consecutive loops: t1, t2, t3 (and 9 more)');
    expect(formatSameFailuresReason(state, 5)).toBe('Same failing tests in 3 consecutive loops: t1, t2, t3, t4, t5 (and 7 more)');
  });

  it('says when the gate could not complete rather than naming tests', () => {
    const state = nextSameFailures(nextSameFailures(initialSameFailures(), errored), errored);
    expect(formatSameFailuresReason(state)).toBe('Verification could not complete in 2 consecutive loops: npm test');
  });
});

describe('openBreakerForSameFailures', () => {
  it('opens a CLOSED breaker with the reason, counting the open, as a transition for the history', () => {
    const now = Date.parse('2026-11-30T05:00:00Z');
    const before = { ...initialBreakerState(now - 60_000), total_opens: 1, consecutive_no_progress: 1 };
    const result = openBreakerForSameFailures(before, 'Same failing tests in 3 consecutive loops: a', 7, now);
    expect(result.state).toMatchObject({
      state: 'OPEN',
      reason: 'Same failing tests in 3 consecutive loops: a',
      total_opens: 2,
      current_loop: 7,
      consecutive_no_progress: 1,
      opened_at: '2026-11-30T05:00:00+00:00',
    });
    expect(result.transition).toEqual({
      from: 'CLOSED',
      to: 'OPEN',
      reason: 'Same failing tests in 3 consecutive loops: a',
      loop: 7,
      timestamp: '2026-11-30T05:00:00+00:00',
    });
  });

  it('leaves an already OPEN breaker as it is', () => {
    const open = { ...initialBreakerState(0), state: 'OPEN' as const, reason: 'earlier' };
    expect(openBreakerForSameFailures(open, 'x', 1, 10)).toEqual({ state: open });
  });
});

describe('checkCompletion', () => {
  const completed: ExitGateResult = { kind: 'exit', reason: 'project_complete', outcome: 'completed' };

  it('lets the exit gate decide when it does not complete the run, or verification is not required', () => {
    expect(checkCompletion({ exitGate: { kind: 'continue' }, requiredForExit: true, latest: null, fresh: false })).toEqual({ kind: 'proceed' });
    const halted: ExitGateResult = { kind: 'exit', reason: 'permission_denied', outcome: 'halted' };
    expect(checkCompletion({ exitGate: halted, requiredForExit: true, latest: failing(['a']), fresh: true })).toEqual({ kind: 'proceed' });
    expect(checkCompletion({ exitGate: completed, requiredForExit: false, latest: failing(['a']), fresh: true })).toEqual({ kind: 'proceed' });
  });

  it('asks for a gate run when there is no result or it is older than the last change', () => {
    expect(checkCompletion({ exitGate: completed, requiredForExit: true, latest: null, fresh: false })).toEqual({ kind: 'verify' });
    expect(checkCompletion({ exitGate: completed, requiredForExit: true, latest: passing, fresh: false })).toEqual({ kind: 'verify' });
  });

  it('accepts completion only when the fresh result passes', () => {
    expect(checkCompletion({ exitGate: completed, requiredForExit: true, latest: passing, fresh: true })).toEqual({ kind: 'proceed' });
    expect(checkCompletion({ exitGate: completed, requiredForExit: true, latest: failing(['a', 'b']), fresh: true })).toEqual({
      kind: 'blocked',
      reason: 'Completion claimed (project_complete) but 2 verification failure(s) remain; continuing',
    });
    expect(checkCompletion({ exitGate: { ...completed, reason: 'plan_complete' }, requiredForExit: true, latest: errored, fresh: true })).toEqual({
      kind: 'blocked',
      reason: 'Completion claimed (plan_complete) but the verification gate could not complete; continuing',
    });
  });

  it('refuses completion on a gate whose test command ran no test', () => {
    const notVerified = { status: 'not-verified' as const, passed: 0, failed: 0, failures: [{ name: 'npm test', message: 'ran no test' }] };
    expect(checkCompletion({ exitGate: completed, requiredForExit: true, latest: notVerified, fresh: true })).toEqual({
      kind: 'blocked',
      reason: 'Completion claimed (project_complete) but the test command ran no test (not verified); continuing',
    });
  });
});

describe('formatFailuresForContext', () => {
  it('names the failing tests with their first message line, the commands and what to do', () => {
    const text = formatFailuresForContext(
      {
        ...failing(['sum.spec.ts > sum > adds two numbers']),
        skipped: 1,
        commands: [
          { command: 'npm test', status: 'failed' },
          { command: 'npm run lint', status: 'passed' },
        ],
      },
      2000,
    );
    expect(text).toBe(
      [
        'Verification gate FAILED after your last changes (`npm test`): 1 failing, 1 passing, 1 skipped. Failing:',
        '- sum.spec.ts > sum > adds two numbers: sum.spec.ts > sum > adds two numbers broke',
        'Fix these before you set EXIT_SIGNAL: true — completion is accepted only when the gate passes.',
      ].join('\n'),
    );
  });

  it('is empty for a passing result', () => {
    expect(formatFailuresForContext(passing, 2000)).toBe('');
  });

  it('stays within the budget and says how many failures it left out', () => {
    const result = failing(
      Array.from({ length: 50 }, (_, i) => `tests/case_${i}.test.ts > group > a fairly long test name number ${i}`),
      0,
      { failuresOmitted: 10, failed: 60 },
    );
    const text = formatFailuresForContext(result, 800);
    expect(text.length).toBeLessThanOrEqual(800);
    expect(text).toContain('case_0.test.ts');
    expect(text).toMatch(/- … and \d+ more/);
    expect(text.endsWith('completion is accepted only when the gate passes.')).toBe(true);
  });

  it('never exceeds maxChars (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 400 }), { maxLength: 30 }), fc.integer({ min: 0, max: 3000 }), (names, max) => {
        expect(formatFailuresForContext(failing(names.length ? names : ['x']), max).length).toBeLessThanOrEqual(max);
      }),
    );
  });

  it('explains an error result', () => {
    const text = formatFailuresForContext({ ...errored, commands: [{ command: 'npm test', status: 'error' }] }, 500);
    expect(text).toContain('Verification gate could not complete (`npm test`):');
    expect(text).toContain('- npm test: timed out after 10m');
  });
});
