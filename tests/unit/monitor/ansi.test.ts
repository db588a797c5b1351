import { describe, expect, it } from 'vitest';
import { composeLine, cutToWidth, sanitizeText, shouldUseColor, visibleWidth } from '../../../lib/monitor/ansi.js';
import { stripTerminalControls as stripAnsi } from '../../../lib/text/terminal-text.js';

describe('visibleWidth', () => {
  it('counts ASCII as one column, wide emoji and CJK as two, combining marks as none', () => {
    expect(visibleWidth('abc')).toBe(3);
    expect(visibleWidth('✅ ok')).toBe(5);
    expect(visibleWidth('🔍')).toBe(2);
    expect(visibleWidth('日本')).toBe(4);
    expect(visibleWidth('e\u0301')).toBe(1);
    expect(visibleWidth('⚠️')).toBe(1);
  });

  it('ignores escape sequences', () => {
    expect(visibleWidth('\x1b[1;31mred\x1b[0m')).toBe(3);
  });

  it('gives every character the same width alone (the one-column fast path) as beside a wide one (the walk)', () => {
    const differing: string[] = [];
    for (let cp = 0x20; cp < 0x10000; cp++) {
      if ((cp >= 0xd800 && cp <= 0xdfff) || cp === 0x65e5) continue; // surrogates, and 日 itself
      const char = String.fromCharCode(cp);
      if (visibleWidth(char) !== visibleWidth(`${char}日`) - 2) differing.push(cp.toString(16));
      if (cutToWidth(char.repeat(3), 2) !== cutToWidth(`${char.repeat(3)}日`, 2).replace('日', '')) differing.push(`cut ${cp.toString(16)}`);
    }
    expect(differing).toEqual([]);
  });
});

describe('composeLine', () => {
  it('keeps a line that fits as it is', () => {
    expect(composeLine([{ text: 'Loop ' }, { text: '#3' }], 20, false)).toBe('Loop #3');
  });

  it('cuts a line that does not fit and ends it with an ellipsis, never wider than the width', () => {
    const line = composeLine([{ text: 'a'.repeat(30) }, { text: 'b'.repeat(30), style: 'red' }], 40, true);
    expect(visibleWidth(line)).toBe(40);
    expect(stripAnsi(line)).toBe(`${'a'.repeat(30)}${'b'.repeat(9)}…`);
  });

  it('does not split a wide character across the edge', () => {
    const line = composeLine([{ text: 'ab🔍🔍🔍' }], 6, false);
    expect(visibleWidth(line)).toBeLessThanOrEqual(6);
    expect(line).toBe('ab🔍…');
  });

  it('colours segments only when colour is on', () => {
    // Node's styleText closes each style with its own reset (39: default colour, 22: normal weight).
    expect(composeLine([{ text: 'OPEN', style: 'red' }], 20, true)).toBe('\x1b[31mOPEN\x1b[39m');
    expect(composeLine([{ text: 'RALPH', style: 'title' }], 20, true)).toBe('\x1b[1m\x1b[36mRALPH\x1b[39m\x1b[22m');
    expect(composeLine([{ text: 'OPEN', style: 'red' }], 20, false)).toBe('OPEN');
  });
});

describe('sanitizeText', () => {
  it('removes escape sequences and control characters that could move the cursor', () => {
    expect(sanitizeText('a\x1b[2J\x1b[Hb\x07c\rd\te\x1b]0;title\x07')).toBe('abc d e');
  });

  it('cutToWidth returns the longest prefix that fits', () => {
    expect(cutToWidth('hello', 3)).toBe('hel');
  });
});

describe('shouldUseColor', () => {
  it('is on for a TTY and off with NO_COLOR or without a TTY', () => {
    expect(shouldUseColor(true, {})).toBe(true);
    expect(shouldUseColor(true, { NO_COLOR: '1' })).toBe(false);
    expect(shouldUseColor(false, {})).toBe(false);
    // no-color.org: an empty NO_COLOR does not count.
    expect(shouldUseColor(true, { NO_COLOR: '' })).toBe(true);
  });
});
