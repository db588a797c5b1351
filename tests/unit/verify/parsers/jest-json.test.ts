import { describe, expect, it } from 'vitest';
import { parseJestJson } from '../../../../lib/verify/parsers/jest-json.js';
import { readReport } from './report-fixture.js';

describe('parseJestJson', () => {
  it('reads a recorded vitest JSON report: counts, the failing test by file > suite > test, the assertion message', () => {
    const report = parseJestJson(readReport('vitest-report.json'), { format: 'vitest-json', cwd: '/home/dev/project' });
    expect(report).toEqual({
      format: 'vitest-json',
      passed: 1,
      failed: 1,
      skipped: 1,
      failures: [{ name: 'sum.spec.ts > sum > adds two numbers', message: 'AssertionError: expected -1 to be 3 // Object.is equality' }],
    });
  });

  it('reads a jest report: pending and todo are skipped, a suite that failed to run is one failure', () => {
    const report = parseJestJson(readReport('jest-report.json'), { format: 'jest-json', cwd: '/home/dev/shop' })!;
    expect(report).toMatchObject({ format: 'jest-json', passed: 3, failed: 2, skipped: 2 });
    expect(report.failures).toEqual([
      {
        name: 'src/cart.test.js > cart > totals > adds tax',
        message: 'Error: expect(received).toBe(expected) // Object.is equality\nExpected: 30\nReceived: 20',
      },
      { name: 'src/broken.test.js', message: "● Test suite failed to run\nCannot find module './missing' from 'src/broken.test.js'" },
    ]);
  });

  it('keeps absolute names when the file is outside cwd', () => {
    const report = parseJestJson(readReport('jest-report.json'), { format: 'jest-json', cwd: '/elsewhere' })!;
    expect(report.failures[0]!.name).toBe('/home/dev/shop/src/cart.test.js > cart > totals > adds tax');
  });

  it('gives null for text that is not a report', () => {
    expect(parseJestJson('not json', { format: 'jest-json' })).toBeNull();
    expect(parseJestJson('{"numTotalTests": 1}', { format: 'jest-json' })).toBeNull();
    expect(parseJestJson('[]', { format: 'vitest-json' })).toBeNull();
  });

  it('survives odd entries without throwing', () => {
    const text = JSON.stringify({ testResults: [null, 3, { assertionResults: [null, { status: 'failed' }] }] });
    expect(parseJestJson(text, { format: 'vitest-json' })).toEqual({
      format: 'vitest-json',
      passed: 0,
      failed: 1,
      skipped: 0,
      failures: [{ name: '(unnamed test)', message: '' }],
    });
  });
});
