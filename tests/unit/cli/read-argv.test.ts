// The command-line conventions ralph's flags keep from the yargs days: each spelling of a value,
// grouped switches, `--no-NAME`, a value flag followed by a flag, negative numbers, `--`.

import { describe, expect, it } from 'vitest';
import { readArgv, type ArgvFlag } from '../../../lib/cli/read-argv.js';

const FLAGS: ArgvFlag[] = [
  { name: 'calls', alias: 'c', takesValue: true },
  { name: 'verbose', alias: 'v', takesValue: false },
  { name: 'live', alias: 'l', takesValue: false },
  { name: 'rollback', takesValue: true },
  { name: 'json', takesValue: false },
];

const read = (argv: string[]) => {
  const { values, positional, unknown } = readArgv(argv, FLAGS);
  return { values: Object.fromEntries(values), positional, unknown };
};

describe('readArgv', () => {
  it.each([
    [['--calls', '5'], { calls: ['5'] }],
    [['--calls=5'], { calls: ['5'] }],
    [['--calls='], { calls: [''] }],
    [['-c', '5'], { calls: ['5'] }],
    [['-c5'], { calls: ['5'] }],
    [['-c=5'], { calls: ['5'] }],
    [['-vlc', '5'], { verbose: [true], live: [true], calls: ['5'] }],
    [['--calls', '5', '--calls', '6'], { calls: ['5', '6'] }],
    [['--no-verbose'], { verbose: [false] }],
    [['--verbose=false', '--live=true'], { verbose: [false], live: [true] }],
    [['--rollback', '--json'], { rollback: [''], json: [true] }],
    [['--rollback'], { rollback: [''] }],
    [['--calls', '-1'], { calls: ['-1'] }],
    [['--calls', '-2.5'], { calls: ['-2.5'] }],
  ])('%j → %j', (argv, values) => {
    expect(read(argv)).toEqual({ values, positional: [], unknown: [] });
  });

  it('names the flags of no row, as typed, and keeps going', () => {
    expect(read(['--bogus=3', '-vx', '--no-calls', '--calls', '-y'])).toEqual({
      values: { verbose: [true], calls: [''] },
      positional: [],
      unknown: ['--bogus', '-x', '--no-calls', '-y'],
    });
  });

  it('keeps words that are no flag, and everything after --, as positional', () => {
    expect(read(['status', '-', '--json', '--', '--calls', '5'])).toEqual({
      values: { json: [true] },
      positional: ['status', '-', '--calls', '5'],
      unknown: [],
    });
  });

  it('reads a long alias as its row (`--github-label` is `--label`)', () => {
    const flags: ArgvFlag[] = [{ name: 'label', alias: 'github-label', takesValue: true }];
    expect(Object.fromEntries(readArgv(['--github-label', 'bug', '--label=ui'], flags).values)).toEqual({ label: ['bug', 'ui'] });
  });
});
