import { describe, expect, it } from 'vitest';
import { parseRalphStatus, resolveExitSignal, stripRalphStatusBlocks } from '../../../lib/analysis/ralph-status.js';

const FULL_BLOCK = [
  'Implemented the parser.',
  '',
  '---RALPH_STATUS---',
  'STATUS: IN_PROGRESS',
  'TASKS_COMPLETED_THIS_LOOP: 2',
  'FILES_MODIFIED: 5',
  'TESTS_STATUS: PASSING',
  'WORK_TYPE: IMPLEMENTATION',
  'EXIT_SIGNAL: false',
  'RECOMMENDATION: Continue with the exit gate',
  '---END_RALPH_STATUS---',
].join('\n');

describe('parseRalphStatus', () => {
  it('reads every field of the fenced block', () => {
    expect(parseRalphStatus(FULL_BLOCK)).toEqual({
      status: 'IN_PROGRESS',
      tasksCompletedThisLoop: 2,
      filesModified: 5,
      testsStatus: 'PASSING',
      workType: 'IMPLEMENTATION',
      exitSignal: false,
      recommendation: 'Continue with the exit gate',
    });
  });

  it('reads the YAML header form (#262)', () => {
    const text = [
      'Done with this loop.',
      'RALPH_STATUS:',
      '  STATUS: COMPLETE',
      '  TASKS_COMPLETED_THIS_LOOP: 1',
      '  FILES_MODIFIED: 3',
      '  TESTS_STATUS: FAILING',
      '  WORK_TYPE: TESTING',
      '  EXIT_SIGNAL: true',
      '  RECOMMENDATION: "Ship it"',
      '',
      'Trailing prose STATUS: BLOCKED is not part of the block.',
    ].join('\n');
    expect(parseRalphStatus(text)).toEqual({
      status: 'COMPLETE',
      tasksCompletedThisLoop: 1,
      filesModified: 3,
      testsStatus: 'FAILING',
      workType: 'TESTING',
      exitSignal: true,
      recommendation: 'Ship it',
    });
  });

  it('returns null without a block, and for mid-line mentions of the gate', () => {
    expect(parseRalphStatus('No block here. STATUS: COMPLETE EXIT_SIGNAL: true')).toBeNull();
    expect(parseRalphStatus('I will print the ---RALPH_STATUS--- block next time.\nEXIT_SIGNAL: true')).toBeNull();
    expect(parseRalphStatus('See the RALPH_STATUS: section of PROMPT.md')).toBeNull();
  });

  it('accepts indentation before the gate (e.g. inside a list or code block)', () => {
    const text = '```\n  ---RALPH_STATUS---\n  STATUS: COMPLETE\n  ---END_RALPH_STATUS---\n```';
    expect(parseRalphStatus(text)?.status).toBe('COMPLETE');
  });

  it('does not read TESTS_STATUS as STATUS (a Bash-version bug)', () => {
    const text = '---RALPH_STATUS---\nTESTS_STATUS: COMPLETE\n---END_RALPH_STATUS---';
    const status = parseRalphStatus(text);
    expect(status?.status).toBeUndefined();
    expect(status?.testsStatus).toBe('COMPLETE');
    expect(resolveExitSignal(status)).toBe(false);
  });

  it('lets the last block win when there are several', () => {
    const text = `${FULL_BLOCK}\n\nOn reflection:\n---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---`;
    const status = parseRalphStatus(text);
    expect(status?.status).toBe('COMPLETE');
    expect(status?.exitSignal).toBe(true);
    expect(status?.tasksCompletedThisLoop).toBeUndefined();
  });

  it('reads an unterminated fenced block to the end of the text', () => {
    expect(parseRalphStatus('---RALPH_STATUS---\nEXIT_SIGNAL: true')?.exitSignal).toBe(true);
  });

  it('tolerates CRLF, lower-case keys, bullets, bold keys and trailing words', () => {
    const text =
      '---RALPH_STATUS---\r\n- **STATUS**: complete - everything is done\r\nexit_signal: TRUE\r\n* FILES_MODIFIED: 7 files\r\n---END_RALPH_STATUS---\r\n';
    expect(parseRalphStatus(text)).toMatchObject({ status: 'COMPLETE', exitSignal: true, filesModified: 7 });
  });

  it('leaves exitSignal undefined when absent or not a boolean', () => {
    expect(parseRalphStatus('---RALPH_STATUS---\nSTATUS: COMPLETE\n---END_RALPH_STATUS---')?.exitSignal).toBeUndefined();
    expect(parseRalphStatus('---RALPH_STATUS---\nEXIT_SIGNAL: false | true\n---END_RALPH_STATUS---')?.exitSignal).toBeUndefined();
  });
});

describe('resolveExitSignal', () => {
  it.each([
    ['EXIT_SIGNAL: true', true],
    ['EXIT_SIGNAL: false', false],
    ['STATUS: COMPLETE', true],
    ['STATUS: COMPLETE\nEXIT_SIGNAL: false', false],
    ['STATUS: IN_PROGRESS\nEXIT_SIGNAL: true', true],
    ['STATUS: IN_PROGRESS', false],
  ])('%j → %s (an explicit EXIT_SIGNAL beats STATUS, #146)', (body, expected) => {
    expect(resolveExitSignal(parseRalphStatus(`---RALPH_STATUS---\n${body}\n---END_RALPH_STATUS---`))).toBe(expected);
  });

  it('is false without a block', () => {
    expect(resolveExitSignal(null)).toBe(false);
  });
});

describe('stripRalphStatusBlocks', () => {
  it('removes both block forms and keeps the prose', () => {
    const text = `${FULL_BLOCK}\nafter\nRALPH_STATUS:\n  STATUS: COMPLETE\nend`;
    expect(stripRalphStatusBlocks(text)).toBe('Implemented the parser.\n\nafter\nend');
  });

  it('returns text without blocks unchanged', () => {
    expect(stripRalphStatusBlocks('a\r\nb')).toBe('a\r\nb');
  });
});
