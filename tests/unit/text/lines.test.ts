import { describe, expect, it } from 'vitest';
import { firstLine, lastLine } from '../../../lib/text/lines.js';

describe('firstLine and lastLine', () => {
  it('give the first and last line that says something, trimmed', () => {
    const text = '\n\n  Error: disk full  \r\n  at write (fs.js:1)\r\n\n  exit 1 \n\n';
    expect(firstLine(text)).toBe('Error: disk full');
    expect(lastLine(text)).toBe('exit 1');
  });

  it('give an empty line for no text at all', () => {
    for (const text of [undefined, null, '', ' \n\t\n']) {
      expect(firstLine(text)).toBe('');
      expect(lastLine(text)).toBe('');
    }
  });
});
