// A gate run that passed with far fewer tests than the last passing one: its test commands are
// not verified, each naming the counts; a small or no drop, a failing run, or no earlier count
// leaves the result as it was.

import { describe, expect, it } from 'vitest';
import { checkTestCount, isSharpDrop } from '../../../lib/verify/test-count.js';
import { combineVerification, describeVerification, type CommandVerification } from '../../../lib/verify/verification-result.js';

function command(overrides: Partial<CommandVerification> = {}): CommandVerification {
  return {
    command: 'npm test',
    role: 'test',
    status: 'passed',
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 100,
    format: 'tap',
    passed: 12,
    failed: 0,
    skipped: 0,
    failures: [],
    failuresOmitted: 0,
    output: '',
    ...overrides,
  };
}
const lint = command({ command: 'npm run lint', role: 'quality-gate', format: 'exit-code', passed: 0 });

describe('checkTestCount', () => {
  it('more than half of the tests gone: the test command is not verified, naming both counts', () => {
    const result = checkTestCount(combineVerification([command({ passed: 5 }), lint], 100), 12);
    expect(result.status).toBe('not-verified');
    expect(result.commands[0]).toMatchObject({ status: 'not-verified', lostTests: { ran: 5, before: 12 } });
    expect(result.commands[1]!.status).toBe('passed');
    expect(result.failures[0]!.message).toMatch(/^ran 5 tests where the last passing gate run ran 12: more than half of the tests are gone; not verified/);
    expect(describeVerification(result)).toContain('(npm test: ran 5 of the 12 tests of the last passing run; npm run lint: passed)');
  });

  it('half or more still running, a failing run, or no earlier count: unchanged', () => {
    for (const [ran, before] of [
      [6, 12],
      [12, 12],
      [20, 12],
      [0, 1],
      [0, null],
    ] as const) {
      const result = combineVerification([command({ passed: ran })], 100);
      expect(checkTestCount(result, before), `${ran} of ${before}`).toBe(result);
    }
    const failing = combineVerification([command({ status: 'failed', passed: 1, failed: 1 })], 100);
    expect(checkTestCount(failing, 12)).toBe(failing);
  });

  it('isSharpDrop: fewer than half, from at least 2', () => {
    expect(isSharpDrop(0, 2)).toBe(true);
    expect(isSharpDrop(1, 2)).toBe(false);
    expect(isSharpDrop(4, 9)).toBe(true);
  });
});
