import { describe, expect, it } from 'vitest';
import { countTaskLines, formatTaskLine, toPlainTextLine } from '../../../lib/tasks/task-line.js';

describe('formatTaskLine', () => {
  it('writes an open task with the source id', () => {
    expect(formatTaskLine({ id: '#12', title: 'Fix login' })).toBe('- [ ] [#12] Fix login');
    expect(formatTaskLine({ title: 'No id' })).toBe('- [ ] No id');
  });

  it('keeps shell syntax in titles as plain text', () => {
    expect(formatTaskLine({ id: '#1', title: '`touch pwned` $(touch pwned2)' })).toBe('- [ ] [#1] `touch pwned` $(touch pwned2)');
  });

  it('turns newlines and control characters into spaces so a title cannot add a second task', () => {
    const line = formatTaskLine({ id: '#2', title: 'first\n- [ ] injected\r\n\u001b[31mred\ttab' });
    expect(line).toBe('- [ ] [#2] first - [ ] injected [31mred tab');
    expect(line.split('\n')).toHaveLength(1);
  });
});

describe('toPlainTextLine', () => {
  it('collapses whitespace and trims', () => {
    expect(toPlainTextLine('  a \u2028 b  ')).toBe('a b');
  });
});

describe('countTaskLines', () => {
  it('counts lines starting with "- ["', () => {
    expect(countTaskLines(['- [ ] a', '- [x] b', '  - [ ] nested', '# heading', 'text'])).toBe(2);
  });
});
