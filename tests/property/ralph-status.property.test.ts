// Property tests of the RALPH_STATUS block parser: never throws, reads back every field of a
// block in either form whatever decoration and prose surround it, the last block wins, and
// prose that merely mentions the fields is never read as a block.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRalphStatus, resolveExitSignal, stripRalphStatusBlocks } from '../../lib/analysis/ralph-status.js';

const RUNS = 400;

const TOKENS = [
  '---RALPH_STATUS---',
  '---END_RALPH_STATUS---',
  'RALPH_STATUS:',
  'STATUS:',
  'EXIT_SIGNAL:',
  'TESTS_STATUS:',
  'TASKS_COMPLETED_THIS_LOOP:',
  'FILES_MODIFIED:',
  'WORK_TYPE:',
  'RECOMMENDATION:',
  ' true',
  ' false',
  ' COMPLETE',
  ' 12',
  '**',
  '- ',
  '* ',
  '"',
  "'",
  '`',
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\r',
  ':',
  'é',
  '😀',
  'x',
];
const anyText = fc.oneof(
  fc.array(fc.constantFrom(...TOKENS), { maxLength: 80 }).map((t) => t.join('')),
  fc.string({ unit: 'binary', maxLength: 500 }),
);

const FENCE_START = /^\s*---RALPH_STATUS---\s*$/;
const YAML_START = /^\s*RALPH_STATUS:\s*$/;
const FIELD = /^\s*(?:[-*]\s+)?\**([A-Za-z_]+)\**\s*:\s*(.*?)\s*$/;

// Agent prose: any line that does not itself open a block (and, after a YAML block, does not
// look like a `KEY: value` field, which would extend it).
const proseLine = fc
  .oneof(
    fc.string({ unit: 'grapheme', maxLength: 60 }),
    fc.constantFrom(
      'I updated the RALPH_STATUS: block below.',
      'EXIT_SIGNAL: true is what I would say if done.',
      'Note: STATUS: COMPLETE is not claimed yet',
      '```',
      '---',
      'All tasks complete!',
      '',
    ),
  )
  .map((s) => s.replace(/[\r\n]/g, ' '))
  .filter((l) => !FENCE_START.test(l) && !YAML_START.test(l) && !/^\s*---END_RALPH_STATUS---\s*$/.test(l));
const proseNotField = proseLine.filter((l) => !FIELD.test(l));

// A recommendation the agent writes: one line of text, no surrounding quotes or bold markers.
const recommendation = fc
  .string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789.,;:!?()-_/é'.split('')), minLength: 1, maxLength: 40 })
  .map((s) => s.trim())
  .filter((s) => s !== '');

const block = fc.record({
  status: fc.constantFrom('IN_PROGRESS', 'COMPLETE', 'BLOCKED'),
  tasks: fc.nat(1000),
  files: fc.nat(1000),
  tests: fc.constantFrom('PASSING', 'FAILING', 'NOT_RUN'),
  work: fc.constantFrom('IMPLEMENTATION', 'TESTING', 'DOCUMENTATION', 'REFACTORING'),
  exit: fc.boolean(),
  recommendation,
});
type Block = typeof block extends fc.Arbitrary<infer T> ? T : never;

const style = fc.record({
  form: fc.constantFrom('fenced' as const, 'yaml' as const),
  bullet: fc.constantFrom('', '- ', '* '),
  bold: fc.boolean(),
  quote: fc.constantFrom('', '"', "'"),
  indent: fc.constantFrom('', '  ', '\t'),
  lowerValues: fc.boolean(),
  order: fc.shuffledSubarray([0, 1, 2, 3, 4, 5, 6], { minLength: 7, maxLength: 7 }),
});
type Style = typeof style extends fc.Arbitrary<infer T> ? T : never;

function renderBlock(b: Block, s: Style): string[] {
  const v = (x: string) => (s.lowerValues ? x.toLowerCase() : x);
  const fields: Array<[string, string]> = [
    ['STATUS', v(b.status)],
    ['TASKS_COMPLETED_THIS_LOOP', String(b.tasks)],
    ['FILES_MODIFIED', String(b.files)],
    ['TESTS_STATUS', v(b.tests)],
    ['WORK_TYPE', v(b.work)],
    ['EXIT_SIGNAL', v(String(b.exit))],
    ['RECOMMENDATION', b.recommendation],
  ];
  const lines = s.order.map((i) => {
    const [key, value] = fields[i]!;
    const k = s.bold ? `**${key}**` : key;
    return `${s.indent}${s.bullet}${k}: ${s.quote}${value}${s.quote}`;
  });
  return s.form === 'fenced' ? ['---RALPH_STATUS---', ...lines, '---END_RALPH_STATUS---'] : ['RALPH_STATUS:', ...lines];
}

const expected = (b: Block) => ({
  status: b.status,
  tasksCompletedThisLoop: b.tasks,
  filesModified: b.files,
  testsStatus: b.tests,
  workType: b.work,
  exitSignal: b.exit,
  recommendation: b.recommendation,
});

describe('parseRalphStatus (property)', () => {
  it('never throws on any text', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const parsed = parseRalphStatus(text);
        expect(typeof resolveExitSignal(parsed)).toBe('boolean');
        expect(typeof stripRalphStatusBlocks(text)).toBe('string');
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('reads back every field of a block, in either form and any decoration, among prose', () => {
    fc.assert(
      fc.property(
        fc.array(proseLine, { maxLength: 8 }),
        block,
        style,
        fc.array(proseNotField, { maxLength: 5 }),
        fc.constantFrom('\n', '\r\n'),
        (before, b, s, after, eol) => {
          const text = [...before, ...renderBlock(b, s), ...after].join(eol);
          expect(parseRalphStatus(text)).toEqual(expected(b));
          expect(resolveExitSignal(parseRalphStatus(text))).toBe(b.exit);
          // Stripping the block leaves the prose and no block.
          expect(parseRalphStatus(stripRalphStatusBlocks(text))).toBeNull();
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('the last block wins', () => {
    fc.assert(
      fc.property(block, style, block, style, fc.array(proseNotField, { maxLength: 4 }), (b1, s1, b2, s2, between) => {
        const text = [...renderBlock(b1, s1), ...between, ...renderBlock(b2, s2)].join('\n');
        expect(parseRalphStatus(text)).toEqual(expected(b2));
      }),
      { numRuns: RUNS },
    );
  });

  it('prose that mentions the fields, without a block, is no block and no exit signal', () => {
    fc.assert(
      fc.property(fc.array(proseLine, { maxLength: 20 }), (lines) => {
        const text = [...lines, 'EXIT_SIGNAL: true', 'STATUS: COMPLETE'].join('\n');
        expect(parseRalphStatus(text)).toBeNull();
        expect(resolveExitSignal(parseRalphStatus(text))).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });
});
