import { describe, expect, it } from 'vitest';
import { boundFailure, combineVerification, describeVerification, truncateText, type CommandVerification } from '../../../lib/verify/verification-result.js';

function command(overrides: Partial<CommandVerification>): CommandVerification {
  return {
    command: 'x',
    role: 'test',
    status: 'passed',
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 10,
    format: 'exit-code',
    passed: 0,
    failed: 0,
    skipped: 0,
    failures: [],
    failuresOmitted: 0,
    output: '',
    ...overrides,
  };
}

describe('combineVerification', () => {
  it('sums the commands; error beats failed beats passed', () => {
    const test = command({ status: 'failed', passed: 4, failed: 1, skipped: 2, failures: [{ name: 'a', message: 'm' }] });
    const lint = command({ command: 'lint', role: 'quality-gate', status: 'passed' });
    expect(combineVerification([test, lint], 99)).toMatchObject({
      status: 'failed',
      passed: 4,
      failed: 1,
      skipped: 2,
      durationMs: 99,
      failures: [{ name: 'a' }],
    });
    expect(combineVerification([test, command({ status: 'error' })], 1).status).toBe('error');
    expect(combineVerification([lint], 1).status).toBe('passed');
    expect(combineVerification([], 0).status).toBe('passed');
  });

  it('a test command that ran no test makes the gate not-verified, below failed and error', () => {
    const none = command({ status: 'not-verified', format: 'tap' });
    expect(combineVerification([none, command({ role: 'quality-gate' })], 1).status).toBe('not-verified');
    expect(combineVerification([none, command({ status: 'failed' })], 1).status).toBe('failed');
    expect(combineVerification([none, command({ status: 'error' })], 1).status).toBe('error');
  });
});

describe('describeVerification', () => {
  it('says the verdict, counts and each command in one line', () => {
    const result = combineVerification(
      [command({ command: 'npm test', status: 'failed', passed: 4, failed: 1 }), command({ command: 'npm run lint', status: 'error', timedOut: true })],
      2340,
    );
    expect(describeVerification(result)).toBe(
      'Verification gate could not complete in 2.3s: 1 failing, 4 passing, 0 skipped (npm test: failed; npm run lint: timed out)',
    );
    expect(describeVerification(combineVerification([command({ command: 'make check', format: 'tap', passed: 2 })], 100))).toBe(
      'Verification gate passed in 0.1s: 0 failing, 2 passing, 0 skipped (make check: passed)',
    );
  });

  it('labels a pass read from the exit code alone, and a test command that ran no test', () => {
    const lint = command({ command: 'npm run lint', role: 'quality-gate' });
    expect(describeVerification(combineVerification([command({ command: 'true' }), lint], 100))).toBe(
      'Verification gate passed in 0.1s: 0 failing, 0 passing, 0 skipped (true: passed (exit code only); npm run lint: passed)',
    );
    expect(describeVerification(combineVerification([command({ command: 'npm test', status: 'not-verified', format: 'tap' }), lint], 100))).toBe(
      'Verification gate NOT VERIFIED (a test command ran no test) in 0.1s: 0 failing, 0 passing, 0 skipped (npm test: ran no test; npm run lint: passed)',
    );
  });
});

describe('bounding', () => {
  it('truncates names and messages and folds whitespace in names', () => {
    const bounded = boundFailure({ name: `a\n  b${'n'.repeat(400)}`, message: 'm'.repeat(800) });
    expect(bounded.name.startsWith('a b')).toBe(true);
    expect(bounded.name).toHaveLength(300);
    expect(bounded.message).toHaveLength(500);
    expect(bounded.message.endsWith('…')).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    expect(truncateText('ab😀cd', 4)).toBe('ab…');
    expect(truncateText('short', 10)).toBe('short');
  });
});
