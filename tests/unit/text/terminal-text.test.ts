import { HOSTILE_TEXT, UNSAFE_FOR_TERMINAL } from '../../fixtures/terminal/hostile-text.js';
import { describe, expect, it } from 'vitest';
import { stripTerminalControls } from '../../../lib/text/terminal-text.js';

describe('stripTerminalControls', () => {
  it.each([
    ['an OSC window title (BEL)', 'a\x1b]0;pwned\x07b', 'ab'],
    ['an OSC window title (ST)', 'a\x1b]2;pwned\x1b\\b', 'ab'],
    ['an OSC 52 clipboard write', 'a\x1b]52;c;ZWNobyBoaQ==\x07b', 'ab'],
    ['an OSC 8 hyperlink', '\x1b]8;;https://evil.example\x07click\x1b]8;;\x07', 'click'],
    ['a screen clear and cursor home', '\x1b[2J\x1b[Hhello', 'hello'],
    ['cursor movement and line erase', 'x\x1b[3A\x1b[10;20H\x1b[2Ky', 'xy'],
    ['colours (the agent does not choose ralph colours)', '\x1b[31mred\x1b[0m', 'red'],
    ['a DCS string', 'a\x1bPq#0;2;0;0;0\x1b\\b', 'ab'],
    ['an unterminated OSC', 'a\x1b]0;title to the end', 'a'],
    ['8-bit C1 controls', 'a\u009b2Jb\u009d0;t\u0007c', 'a2Jb0;tc'],
    ['carriage returns, backspaces and bells', 'abc\rxyz\b!\x07', 'abcxyz!'],
  ])('removes %s', (_name, input, output) => {
    expect(stripTerminalControls(input)).toBe(output);
  });

  it('keeps newlines, tabs and every printable character', () => {
    const text = 'line 1\n\tindented ⚡ [Bash] `ls` ü 日本\n';
    expect(stripTerminalControls(text)).toBe(text);
  });
});

describe('stripTerminalControls over the shared hostile-text table', () => {
  it.each(HOSTILE_TEXT)('%s: nothing unsafe is left, the text around it is kept', (_name, text) => {
    const out = stripTerminalControls(text);
    expect(out).not.toMatch(UNSAFE_FOR_TERMINAL);
    expect(out.startsWith('a')).toBe(true);
  });
});
