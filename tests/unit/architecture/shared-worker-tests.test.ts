// The suite's files run one after another in shared worker processes (vitest.config.ts: no file
// is isolated), so a module mock would reach every later file of its worker, or come too late
// for a module an earlier file loaded: a test that counts through one passes or fails by the
// order the files ran in. No test file of `npm test` mocks a module.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const TESTS = join(REPO_ROOT, 'tests');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'system' && dir === TESTS ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('test files in shared workers', () => {
  it('mock no module (vi.mock, vi.doMock)', () => {
    const mocking = testFiles(TESTS)
      .filter((file) => /\bvi\.(?:do)?[mM]ock\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(TESTS, file));
    expect(mocking).toEqual([]);
  });
});
