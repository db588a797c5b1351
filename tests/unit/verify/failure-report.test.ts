import { describe, expect, it } from 'vitest';
import { describeGateFailures } from '../../../lib/verify/failure-report.js';
import { combineVerification, type CommandVerification } from '../../../lib/verify/verification-result.js';

function command(overrides: Partial<CommandVerification>): CommandVerification {
  return {
    command: 'npm test',
    role: 'test',
    status: 'failed',
    exitCode: 1,
    signal: null,
    timedOut: false,
    durationMs: 10,
    format: 'exit-code',
    passed: 0,
    failed: 1,
    skipped: 0,
    failures: [],
    failuresOmitted: 0,
    output: '',
    ...overrides,
  };
}

describe('describeGateFailures', () => {
  it('is empty for a gate that passed', () => {
    expect(describeGateFailures(combineVerification([command({ status: 'passed', exitCode: 0, failed: 0 })], 1))).toEqual([]);
  });

  it('lists the failing tests a report named, and the last lines of a command nothing could be read from', () => {
    const tests = command({
      format: 'vitest-json',
      failed: 2,
      failures: [
        { name: 'sum.spec.ts > adds', message: 'expected 3 to be 4\nat sum.spec.ts:4' },
        { name: 'sum.spec.ts > subtracts', message: '' },
      ],
    });
    const lint = command({
      command: 'npm run lint',
      role: 'quality-gate',
      output: 'lint start\n\nsrc/a.js:1 error no-undef\n',
      failures: [{ name: 'npm run lint', message: 'exited with code 1' }],
    });
    const passing = command({ command: 'tsc', status: 'passed', exitCode: 0, failed: 0 });
    expect(describeGateFailures(combineVerification([tests, passing, lint], 5))).toEqual([
      '  npm test: 2 failing',
      '    ✗ sum.spec.ts > adds — expected 3 to be 4',
      '    ✗ sum.spec.ts > subtracts',
      '  npm run lint: exited with code 1',
      '    lint start',
      '    src/a.js:1 error no-undef',
    ]);
  });

  it('names a timeout, and stays within its line and byte bounds saying how much was left out', () => {
    const timedOut = command({ status: 'error', timedOut: true, exitCode: null, failures: [{ name: 'npm test', message: 'timed out after 5m' }] });
    expect(describeGateFailures(combineVerification([timedOut], 1))).toEqual(['  npm test: timed out', '    timed out after 5m']);

    const many = command({
      format: 'junit-xml',
      failed: 50,
      failures: Array.from({ length: 50 }, (_, i) => ({ name: `case ${i} ${'x'.repeat(150)}`, message: 'boom' })),
    });
    const byLines = describeGateFailures(combineVerification([many], 1), { maxLines: 5, maxBytes: 100_000 });
    expect(byLines).toHaveLength(5);
    expect(byLines.at(-1)).toBe('  … 47 more line(s) in the session record (.ralph/sessions/)');
    const byBytes = describeGateFailures(combineVerification([many], 1));
    expect(byBytes.join('\n').length).toBeLessThanOrEqual(2048);
    expect(byBytes.length).toBeLessThan(20);
    expect(byBytes.at(-1)).toMatch(/^ {2}… \d+ more line\(s\)/);
  });
});
