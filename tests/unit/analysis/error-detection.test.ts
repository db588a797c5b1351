import { describe, expect, it } from 'vitest';
import { detectErrors, errorSignature } from '../../../lib/analysis/error-detection.js';

describe('detectErrors (two-stage filter, #2)', () => {
  it.each([
    ['Error: cannot find module', 1],
    ['ERROR: build failed', 1],
    ['error: unknown option', 1],
    ['[2026-01-01]: error in step', 1],
    ['Link: error while linking', 1],
    ['An Error occurred while saving', 1],
    ['the command failed with error 2', 1],
    ['NullPointerException at Foo', 1],
    ['uncaught exception', 1],
    ['Fatal: not a git repository', 1],
    ['FATAL crash', 1],
    ['  Error: indented is not at line start', 0],
    ['No errors found', 0],
    ['"is_error": false,', 0],
    ['{"api_error_status": null, "message": "Exception"}', 0],
    ['"error": "Error: boom"', 0],
    ['All tests passed', 0],
  ])('%j → %i', (line, count) => {
    expect(detectErrors(line).count).toBe(count);
  });

  it('counts lines across CRLF text and keeps the first five, trimmed', () => {
    const text = Array.from({ length: 7 }, (_, i) => `Error: e${i}  `).join('\r\n');
    const result = detectErrors(text);
    expect(result.count).toBe(7);
    expect(result.lines).toEqual(['Error: e0', 'Error: e1', 'Error: e2', 'Error: e3', 'Error: e4']);
  });
});

describe('errorSignature', () => {
  it('is the same for the same error with different ids, numbers, hashes and paths', () => {
    const a = errorSignature('Error: test failed at /home/u/project/src/a.ts:12:5 (run 3f2a9c1d-1111-4222-8333-444455556666, commit 9fceb02a1)');
    const b = errorSignature('Error: test failed at ./src/other/b.ts:98:1 (run 00000000-aaaa-4bbb-8ccc-dddddddddddd, commit 1a2b3c4d5e6f)');
    expect(a).toBe(b);
    expect(a).toBe('error: test failed at <path> (run <uuid>, commit <hex>)');
  });

  it('differs for different errors and is empty without an error line', () => {
    expect(errorSignature('Error: cannot connect')).not.toBe(errorSignature('Error: permission denied'));
    expect(errorSignature('all good\n"is_error": false')).toBe('');
  });

  it('uses at most the first three error lines', () => {
    const text = ['Error: a', 'Error: b', 'Error: c', 'Error: d'].join('\n');
    expect(errorSignature(text)).toBe('error: a\nerror: b\nerror: c');
  });

  it('collapses Windows paths and 0x addresses', () => {
    expect(errorSignature('Fatal: C:\\work\\x.dll at 0x7ffe12')).toBe('fatal: <path> at <hex>');
  });
});
