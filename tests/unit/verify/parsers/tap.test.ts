import { describe, expect, it } from 'vitest';
import { parseTap } from '../../../../lib/verify/parsers/tap.js';
import { readReport } from './report-fixture.js';

describe('parseTap', () => {
  it('reads recorded node --test TAP: leaf tests only, suite > test names, YAML error messages, SKIP and TODO skipped', () => {
    expect(parseTap(readReport('node-test.tap'))).toEqual({
      format: 'tap',
      passed: 2,
      failed: 1,
      skipped: 2,
      failures: [{ name: 'math > adds', message: 'Expected values to be strictly equal:\n2 !== 3' }],
    });
  });

  it('reads plain TAP (bats style) with quoted YAML messages', () => {
    const tap = [
      '1..3',
      'ok 1 parses the config',
      'not ok 2 rejects bad keys',
      '  ---',
      "  message: 'expected exit 1, got 0'",
      '  ...',
      'ok 3 optional # skip no network',
    ].join('\n');
    expect(parseTap(tap)).toEqual({
      format: 'tap',
      passed: 1,
      failed: 1,
      skipped: 1,
      failures: [{ name: 'rejects bad keys', message: 'expected exit 1, got 0' }],
    });
  });

  it('is not fooled by a single stray "ok" line in ordinary output', () => {
    expect(parseTap('build ok\nok 1 looks like tap\nall done')).toBeNull();
    expect(parseTap('no results here')).toBeNull();
  });
});
