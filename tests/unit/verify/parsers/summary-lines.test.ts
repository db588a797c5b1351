import { describe, expect, it } from 'vitest';
import { parseSummaryLines } from '../../../../lib/verify/parsers/summary-lines.js';
import { readReport } from './report-fixture.js';

describe('parseSummaryLines', () => {
  it('reads recorded vitest default output: counts and FAIL file > suite > test with its error', () => {
    expect(parseSummaryLines(readReport('vitest-output.txt'))).toEqual({
      format: 'summary',
      passed: 1,
      failed: 1,
      skipped: 0,
      failures: [
        { name: 'sum.spec.ts > sum > adds two numbers', message: 'AssertionError: expected -1 to be 3 // Object.is equality\n- Expected\n+ Received' },
      ],
    });
  });

  it('reads recorded pytest output: failures plus errors, FAILED and ERROR lines', () => {
    expect(parseSummaryLines(readReport('pytest-output.txt'))).toEqual({
      format: 'summary',
      passed: 1,
      failed: 3,
      skipped: 1,
      failures: [
        { name: 'tests/test_calc.py::test_add', message: 'assert -1 == 3' },
        { name: 'tests/test_calc.py::TestCalc::test_neg', message: 'AssertionError: negatives <&>...' },
        { name: 'tests/test_calc.py::test_err', message: '' },
      ],
    });
  });

  it('reads jest output: ● headings name the failures, todo counts as skipped', () => {
    expect(parseSummaryLines(readReport('jest-output.txt'))).toEqual({
      format: 'summary',
      passed: 3,
      failed: 1,
      skipped: 2,
      failures: [{ name: 'cart › totals › adds tax', message: 'expect(received).toBe(expected) // Object.is equality\nExpected: 30\nReceived: 20' }],
    });
  });

  it('reads mocha counts', () => {
    expect(parseSummaryLines(readReport('mocha-output.txt'))).toEqual({ format: 'summary', passed: 1, failed: 1, skipped: 1, failures: [] });
  });

  it('strips colour codes before matching', () => {
    const coloured = '\u001b[31m==== \u001b[1m2 failed\u001b[0m, 5 passed in 0.30s ====\u001b[0m';
    expect(parseSummaryLines(coloured)).toMatchObject({ passed: 5, failed: 2 });
  });

  it('gives null when no runner summary is there', () => {
    expect(parseSummaryLines('eslint: 3 problems (3 errors, 0 warnings)')).toBeNull();
  });
});
