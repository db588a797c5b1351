import { describe, expect, it } from 'vitest';
import { parseCargoTest } from '../../../../lib/verify/parsers/cargo-test.js';
import { readReport } from './report-fixture.js';

describe('parseCargoTest', () => {
  it('reads recorded cargo test output: summary counts, FAILED names, panic messages without the backtrace', () => {
    expect(parseCargoTest(readReport('cargo-test.txt'))).toEqual({
      format: 'cargo',
      passed: 1,
      failed: 2,
      skipped: 1,
      failures: [
        { name: 'tests::adds', message: 'assertion `left == right` failed\nleft: -1\nright: 3' },
        { name: 'tests::panics', message: 'boom <here>' },
      ],
    });
  });

  it('adds up every test binary and doc-test summary', () => {
    const text = [
      'test result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s',
      'test src/lib.rs - add (line 3) ... FAILED',
      '---- src/lib.rs - add (line 3) stdout ----',
      'test result: FAILED. 2 passed; 1 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.20s',
    ].join('\n');
    expect(parseCargoTest(text)).toMatchObject({ passed: 6, failed: 1, skipped: 2, failures: [{ name: 'src/lib.rs - add (line 3)' }] });
  });

  it('reads the pre-1.73 inline panic message', () => {
    const text = [
      'test it_works ... FAILED',
      '',
      'failures:',
      '',
      '---- it_works stdout ----',
      "thread 'it_works' panicked at 'assertion failed: false', src/lib.rs:4:5",
      '',
      'failures:',
      '    it_works',
      '',
      'test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out',
    ].join('\n');
    expect(parseCargoTest(text)!.failures).toEqual([{ name: 'it_works', message: 'assertion failed: false' }]);
  });

  it('gives null without a test result line (a compile error)', () => {
    expect(parseCargoTest('error[E0425]: cannot find value `x`\nerror: could not compile `ct`')).toBeNull();
  });
});
