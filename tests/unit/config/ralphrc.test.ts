import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRalphrc } from '../../../lib/config/ralphrc.js';
import { DEFAULT_ALLOWED_TOOLS } from '../../../lib/config/schema.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/ralphrc');

/** The values the file sets, last assignment winning. */
function valuesOf(text: string, env: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(parseRalphrc(text, { env, homeDir: '/home/u' }).entries.map((e) => [e.key, e.value]));
}

describe('parseRalphrc: plain assignments', () => {
  it('reads KEY=value, export, comments, blank lines and trailing comments with line numbers', () => {
    const text = [
      '# a comment',
      '',
      'MAX_CALLS_PER_HOUR=50',
      'export CLAUDE_MODEL=opus   # trailing comment',
      '   CLAUDE_EFFORT=high',
      '\tPROJECT_NAME=app#1',
      'PROJECT_TYPE= # empty value then a comment',
    ].join('\n');
    const { entries, problems } = parseRalphrc(text);
    expect(problems).toEqual([]);
    expect(entries).toEqual([
      { key: 'MAX_CALLS_PER_HOUR', value: '50', line: 3 },
      { key: 'CLAUDE_MODEL', value: 'opus', line: 4 },
      { key: 'CLAUDE_EFFORT', value: 'high', line: 5 },
      { key: 'PROJECT_NAME', value: 'app#1', line: 6 }, // '#' inside a word is not a comment in Bash
      { key: 'PROJECT_TYPE', value: '', line: 7 },
    ]);
  });

  it('handles CRLF line endings and a byte-order mark', () => {
    const values = valuesOf('\uFEFFMAX_CALLS_PER_HOUR=50\r\nCLAUDE_OUTPUT_FORMAT="text"\r\n# c\r\n');
    expect(values).toEqual({ MAX_CALLS_PER_HOUR: '50', CLAUDE_OUTPUT_FORMAT: 'text' });
  });

  it('keeps single quotes literal and applies double-quote escapes', () => {
    const values = valuesOf(
      [
        `TEST_COMMAND='npm test -- --grep "a b" $HOME \\n'`,
        `QUALITY_GATES="say \\"hi\\" \\$HOME \\\\ \\n "`,
        `PROJECT_NAME=a\\ b`,
        `PROJECT_TYPE="x"'y'z`,
      ].join('\n'),
    );
    expect(values.TEST_COMMAND).toBe('npm test -- --grep "a b" $HOME \\n');
    expect(values.QUALITY_GATES).toBe('say "hi" $HOME \\ \\n ');
    expect(values.PROJECT_NAME).toBe('a b');
    expect(values.PROJECT_TYPE).toBe('xyz');
  });

  it('keeps the name as written for aliases and for unknown keys, warning about unknown ones', () => {
    const { entries, problems } = parseRalphrc('CLAUDE_USE_CONTINUE=false\nMAX_CALL_PER_HOUR=5\nMY_OWN=1\n');
    expect(entries.map((e) => e.key)).toEqual(['CLAUDE_USE_CONTINUE', 'MAX_CALL_PER_HOUR', 'MY_OWN']);
    expect(problems).toEqual([
      { file: '.ralphrc', line: 2, key: 'MAX_CALL_PER_HOUR', message: 'unknown key, ignored (did you mean MAX_CALLS_PER_HOUR?)', severity: 'warning' },
      { file: '.ralphrc', line: 3, key: 'MY_OWN', message: 'unknown key, ignored', severity: 'warning' },
    ]);
  });
});

describe('parseRalphrc: variable expansion', () => {
  it('expands $VAR and ${VAR} from earlier keys first, then the environment, unset as empty', () => {
    const values = valuesOf(['PROJECT_NAME=app', 'PROJECT_TYPE="${PROJECT_NAME}-$USER"', 'TEST_COMMAND=run_$NOPE/x', 'CLAUDE_MODEL=$PROJECT_NAME'].join('\n'), {
      USER: 'alice',
      PROJECT_NAME: 'from-env',
    });
    expect(values.PROJECT_TYPE).toBe('app-alice');
    expect(values.TEST_COMMAND).toBe('run_/x');
    expect(values.CLAUDE_MODEL).toBe('app');
  });

  it('falls back to the environment before the file sets the key', () => {
    expect(valuesOf('CLAUDE_MODEL=$PROJECT_NAME\nPROJECT_NAME=late', { PROJECT_NAME: 'env' }).CLAUDE_MODEL).toBe('env');
  });

  it('supports ${VAR:-default} and ${VAR-default}', () => {
    const values = valuesOf(
      [
        'EMPTY=',
        'CLAUDE_CODE_CMD=${CLAUDE_CODE_CMD:-"claude"}',
        'CLAUDE_MODEL="${EMPTY:-sonnet}"',
        'CLAUDE_EFFORT="${EMPTY-high}"',
        'PROJECT_NAME=${UNSET:-${HOME}/x y}',
      ].join('\n'),
      { HOME: '/h' },
    );
    expect(values.CLAUDE_CODE_CMD).toBe('claude');
    expect(values.CLAUDE_MODEL).toBe('sonnet');
    expect(values.CLAUDE_EFFORT).toBe('');
    expect(values.PROJECT_NAME).toBe('/h/x y');
  });

  it('expands a leading ~ to the home directory, but not inside quotes', () => {
    expect(valuesOf('PROMPT_FILE=~/prompts/p.md').PROMPT_FILE).toBe('/home/u/prompts/p.md');
    expect(valuesOf('PROMPT_FILE="~/p.md"').PROMPT_FILE).toBe('~/p.md');
  });

  it('leaves a lone $ alone', () => {
    expect(valuesOf('PROJECT_NAME="cost $ 5$"').PROJECT_NAME).toBe('cost $ 5$');
  });
});

describe('parseRalphrc: anything needing a shell is reported and ignored', () => {
  const cases: Array<[string, RegExp]> = [
    ['X=$(touch pwned)', /command substitution \$\(…\)/],
    ['X=`touch pwned`', /backticks/],
    ['X="a`id`"', /backticks/],
    ['X="$(id)"', /command substitution/],
    ['X=$((1+2))', /arithmetic/],
    ['X=1; touch pwned', /command chains/],
    ['X=1 && touch pwned', /command chains/],
    ['X=1 touch pwned', /words after the value/],
    ['X=a>f', /redirections/],
    ['X=Bash(git *)', /parentheses/],
    ['X="unterminated', /unterminated double quote/],
    ["X='unterminated", /unterminated single quote/],
    ['X=abc\\', /line continuation/],
    ['X=$1', /special parameter/],
    ['X=${#HOME}', /needs a shell/],
    ['X=${HOME:=x}', /needs a shell/],
    ["X=$'a\\n'", /quoting needs a shell/],
    ['source ~/.other', /shell code \("source"\)/],
    ['. ./other', /shell code \("\."\)/],
    ['foo() { echo; }', /shell functions/],
    ['echo hi', /not a KEY=value assignment/],
    ['ARR=(a b)', /parentheses/],
    ['ARR+=x', /arrays and \+=/],
  ];
  it.each(cases)('%s', (line, reason) => {
    const { entries, problems } = parseRalphrc(`MAX_LOOPS=1\n${line}\n`, { file: '.ralphrc' });
    expect(entries.map((e) => e.key)).toEqual(['MAX_LOOPS']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: '.ralphrc', line: 2, severity: 'warning' });
    expect(problems[0]!.message).toMatch(reason);
    expect(problems[0]!.message).toContain('ignored');
  });

  it('ignores everything inside if/for/function blocks, with one warning naming the lines and keys', () => {
    const text = [
      'MAX_LOOPS=1',
      'if [ "$CI" = true ]; then',
      '  MAX_CALLS_PER_HOUR=5',
      '  for x in a b; do',
      '    CLAUDE_MODEL=$x',
      '  done',
      'fi',
      'DRY_RUN=true',
      'setup() {',
      '  CLAUDE_EFFORT=max',
      '}',
      'while true; do LIVE_OUTPUT=true; done',
      'LOG_RETENTION=5',
    ].join('\n');
    const { entries, problems } = parseRalphrc(text);
    expect(entries.map((e) => [e.key, e.value])).toEqual([
      ['MAX_LOOPS', '1'],
      ['DRY_RUN', 'true'],
      ['LOG_RETENTION', '5'],
    ]);
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [2, expect.stringMatching(/shell block \(lines 2-7\).*not set: MAX_CALLS_PER_HOUR, CLAUDE_MODEL/)],
      [9, expect.stringMatching(/shell block \(lines 9-11\).*not set: CLAUDE_EFFORT/)],
      [12, expect.stringContaining('ignored this line')],
    ]);
  });

  it('does not take block words inside quotes for a block', () => {
    const result = parseRalphrc('echo "if you see this, fine"\nMAX_CALLS_PER_HOUR=7\n', { file: '.ralphrc', env: {} });
    expect(result.entries.map((e) => [e.key, e.value])).toEqual([['MAX_CALLS_PER_HOUR', '7']]);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]!.line).toBe(1);
  });

  it('a block word joined to quoted text is one word, not a block (`{""` opens nothing)', () => {
    for (const line of ['echo {""', "echo ''if", 'echo x"done"']) {
      const result = parseRalphrc(`${line}\nMAX_CALLS_PER_HOUR=7\n`, { file: '.ralphrc', env: {} });
      expect(
        result.entries.map((e) => [e.key, e.value]),
        line,
      ).toEqual([['MAX_CALLS_PER_HOUR', '7']]);
    }
  });

  it('reports an unclosed block up to the end of the file', () => {
    const { entries, problems } = parseRalphrc('if true; then\nMAX_LOOPS=3\n');
    expect(entries).toEqual([]);
    expect(problems[0]!.message).toContain('lines 1-2');
  });

  it('never throws, whatever the input', () => {
    const alphabet = [
      'a',
      'Z',
      '_',
      '=',
      ' ',
      '\t',
      '\n',
      '\r',
      '"',
      "'",
      '`',
      '$',
      '{',
      '}',
      '(',
      ')',
      '\\',
      '#',
      ';',
      '&',
      '|',
      ':',
      '-',
      '~',
      'if',
      'export ',
      'X=',
      '${',
      '$(',
      '1',
      'é',
      '\uFEFF',
    ];
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 3000; i++) {
      let text = '';
      const length = Math.floor(random() * 40);
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(random() * alphabet.length)];
      const result = parseRalphrc(text, { env: { HOME: '/h' } });
      const lineCount = text.split('\n').length;
      for (const entry of result.entries) expect(entry.line).toBeLessThanOrEqual(lineCount);
      for (const problem of result.problems) expect(problem.line).toBeLessThanOrEqual(lineCount);
    }
  });
});

describe('parseRalphrc: the file the Bash tool generates', () => {
  it('reads every value with its line number and no problems', () => {
    const text = readFileSync(join(FIXTURES, 'bash-generated.ralphrc'), 'utf8');
    const { entries, problems } = parseRalphrc(text);
    expect(problems).toEqual([]);
    const values = Object.fromEntries(entries.map((e) => [e.key, e.value]));
    expect(values).toMatchObject({
      PROJECT_NAME: 'my-app',
      PROJECT_TYPE: 'typescript',
      CLAUDE_CODE_CMD: 'claude',
      MAX_CALLS_PER_HOUR: '100',
      CLAUDE_TIMEOUT_MINUTES: '15',
      CLAUDE_OUTPUT_FORMAT: 'json',
      ALLOWED_TOOLS: DEFAULT_ALLOWED_TOOLS,
      SESSION_CONTINUITY: 'true',
      TASK_SOURCES: 'github,local',
      BEADS_FILTER: 'status:open',
      CB_OUTPUT_DECLINE_THRESHOLD: '70',
    });
    expect(values).not.toHaveProperty('MAX_TOKENS_PER_HOUR');
    expect(values).not.toHaveProperty('SANDBOX_PROVIDER');
    const allowed = entries.find((e) => e.key === 'ALLOWED_TOOLS')!;
    expect(text.split('\n')[allowed.line - 1]).toMatch(/^ALLOWED_TOOLS="Write,/);
  });
});
