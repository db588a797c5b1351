import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRalphrc } from '../../../lib/config/ralphrc.js';
import { renderRalphrcValue, updateRalphrcText } from '../../../lib/config/ralphrc-writer.js';
import { isRalphError } from '../../../lib/errors.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/ralphrc');

function valuesOf(text: string): Record<string, string> {
  return Object.fromEntries(parseRalphrc(text, { env: {} }).entries.map((e) => [e.key, e.value]));
}

const linesWithout = (text: string, keys: string[]) =>
  text.split('\n').filter((line) => !keys.some((key) => new RegExp(`^\\s*(export\\s+)?${key}=`).test(line)));

describe('updateRalphrcText', () => {
  const original = [
    '# Ralph settings   (keep this spacing)',
    'export MAX_CALLS_PER_HOUR=100  # per hour',
    "CLAUDE_MODEL='sonnet'",
    'ALLOWED_TOOLS="Write,Read"',
    'MY_UNKNOWN_KEY=whatever  ',
    'if [ -n "$CI" ]; then',
    '  DRY_RUN=true',
    'fi',
    '',
  ].join('\n');

  it('edits lines in place, keeping export, quoting and trailing comments', () => {
    const updated = updateRalphrcText(original, { MAX_CALLS_PER_HOUR: '50', CLAUDE_MODEL: 'opus', ALLOWED_TOOLS: 'Write' });
    expect(updated.split('\n')).toEqual([
      '# Ralph settings   (keep this spacing)',
      'export MAX_CALLS_PER_HOUR=50  # per hour',
      "CLAUDE_MODEL='opus'",
      'ALLOWED_TOOLS="Write"',
      'MY_UNKNOWN_KEY=whatever  ',
      'if [ -n "$CI" ]; then',
      '  DRY_RUN=true',
      'fi',
      '',
    ]);
  });

  it('appends missing keys at the end, and does not edit lines the reader ignores', () => {
    const updated = updateRalphrcText(original, { DRY_RUN: 'false', MAX_LOOPS: '7' });
    expect(updated).toBe(`${original}DRY_RUN=false\nMAX_LOOPS=7\n`);
    expect(valuesOf(updated)).toMatchObject({ DRY_RUN: 'false', MAX_LOOPS: '7' });
  });

  it('updates a line written under an alias instead of adding a second one', () => {
    const updated = updateRalphrcText('CLAUDE_USE_CONTINUE=true\n', { SESSION_CONTINUITY: 'false' });
    expect(updated).toBe('CLAUDE_USE_CONTINUE=false\n');
  });

  it('adds a newline before appending to a file without one, and keeps CRLF files CRLF', () => {
    expect(updateRalphrcText('A=1', { MAX_LOOPS: '2' })).toBe('A=1\nMAX_LOOPS=2\n');
    expect(updateRalphrcText('', { MAX_LOOPS: '2' })).toBe('MAX_LOOPS=2\n');
    expect(updateRalphrcText('# c\r\nMAX_LOOPS=1\r\n', { MAX_LOOPS: '2', DRY_RUN: 'true' })).toBe('# c\r\nMAX_LOOPS=2\r\nDRY_RUN=true\r\n');
  });

  it('round-trips tricky values, and every other line stays byte-for-byte', () => {
    const tricky = {
      PROJECT_NAME: 'my app',
      TEST_COMMAND: `npm test -- --grep "it's \`odd\`" $HOME \\n`,
      QUALITY_GATES: '',
      PROMPT_FILE: '~/not-expanded.md',
      CLAUDE_MODEL: "it's",
      ALLOWED_TOOLS: 'Write,Bash(git add *)',
      PROJECT_TYPE: '#not-a-comment',
      MAX_CALLS_PER_HOUR: '42',
    };
    const updated = updateRalphrcText(original, tricky);
    expect(valuesOf(updated)).toMatchObject(tricky);
    const untouched = Object.keys(tricky);
    expect(linesWithout(updated, untouched).join('\n')).toBe(linesWithout(original, untouched).join('\n'));
    expect(parseRalphrc(updated).problems.map((p) => p.key)).toEqual(['MY_UNKNOWN_KEY', undefined]);
  });

  it('round-trips random values', () => {
    const alphabet = ' aZ09_-=,.:/@%+"\'`$\\#;&|(){}[]*?!~é\t';
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 500; i++) {
      let value = '';
      for (let j = Math.floor(random() * 12); j > 0; j--) value += alphabet[Math.floor(random() * alphabet.length)];
      for (const start of ['', 'TEST_COMMAND=x # c\n', "TEST_COMMAND='x'\n", 'TEST_COMMAND="x"\n']) {
        expect(valuesOf(updateRalphrcText(start, { TEST_COMMAND: value })).TEST_COMMAND).toBe(value);
      }
    }
  });

  it('updates the Bash-generated file and keeps all its comments', () => {
    const text = readFileSync(join(FIXTURES, 'bash-generated.ralphrc'), 'utf8');
    const updated = updateRalphrcText(text, { MAX_CALLS_PER_HOUR: '30', GITHUB_TASK_LABEL: 'ralph ready' });
    expect(updated).toContain('\nMAX_CALLS_PER_HOUR=30\n');
    expect(updated).toContain('\nGITHUB_TASK_LABEL="ralph ready"\n');
    const comments = (t: string) => t.split('\n').filter((l) => l.startsWith('#'));
    expect(comments(updated)).toEqual(comments(text));
    expect(updated.split('\n')).toHaveLength(text.split('\n').length);
  });

  it('refuses values that cannot be one line, and invalid names', () => {
    const attempt = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return isRalphError(error) ? error.code : 'other';
      }
      return 'no error';
    };
    expect(attempt(() => updateRalphrcText('', { TEST_COMMAND: 'a\nb' }))).toBe('config_write_invalid');
    expect(attempt(() => updateRalphrcText('', { 'BAD KEY': 'x' }))).toBe('config_write_invalid');
  });
});

describe('renderRalphrcValue', () => {
  it('leaves safe values bare and double-quotes the rest with escapes', () => {
    expect(renderRalphrcValue('100')).toBe('100');
    expect(renderRalphrcValue('status:open')).toBe('status:open');
    expect(renderRalphrcValue('')).toBe('""');
    expect(renderRalphrcValue('a b')).toBe('"a b"');
    expect(renderRalphrcValue('Bash(git *)')).toBe('"Bash(git *)"');
    expect(renderRalphrcValue('say "$x" `y` \\')).toBe('"say \\"\\$x\\" \\`y\\` \\\\"');
  });

  it('refuses to append a key the reader would ignore (inside an unclosed shell block)', () => {
    expect(() => updateRalphrcText('if [ x ]; then\nA=1\n', { CLAUDE_MODEL: 'NEW' })).toThrow(/shell block/);
  });
});
