import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { readIntegerFile, readTrimmedText, writeIntegerFile } from '../../../lib/state/integer-file.js';
import { useTempDir } from './test-context.js';

const tempDir = useTempDir();

describe('integer text files (.call_count, .token_count, .last_reset)', () => {
  it.each([
    ['5\n', 5],
    ['750', 750],
    ['  12 \r\n', 12],
    ['2026113003\n', 2026113003],
    ['-1\n', -1],
  ])('reads %j as %d without warnings', (text, expected) => {
    const path = join(tempDir(), '.call_count');
    writeFileSync(path, text);
    const logger = createMemoryLogger();
    expect(readIntegerFile(path, { logger })).toBe(expected);
    expect(logger.entries).toEqual([]);
  });

  it('reads a missing or empty file as 0 without warnings', () => {
    const dir = tempDir();
    const logger = createMemoryLogger();
    expect(readIntegerFile(join(dir, '.token_count'), { logger })).toBe(0);
    writeFileSync(join(dir, '.call_count'), '');
    expect(readIntegerFile(join(dir, '.call_count'), { logger })).toBe(0);
    expect(logger.entries).toEqual([]);
  });

  it.each(['abc', '3.5', '12abc', '{"n":1}'])('reads non-integer %j as 0 with a warning naming the file', (text) => {
    const path = join(tempDir(), '.call_count');
    writeFileSync(path, text);
    const logger = createMemoryLogger();
    expect(readIntegerFile(path, { logger })).toBe(0);
    expect(logger.messages('WARN')).toEqual([expect.stringContaining('.call_count')]);
  });

  it('writes the value and a newline, as `echo N > file` does', () => {
    const path = join(tempDir(), '.token_count');
    writeIntegerFile(path, 420);
    expect(readFileSync(path, 'utf8')).toBe('420\n');
    expect(readTrimmedText(path)).toBe('420');
  });
});
