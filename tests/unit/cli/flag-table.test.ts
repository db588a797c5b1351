// The flag-table machinery every command uses: value checks by kind and bounds, unknown flags in
// both spellings, help entries, and subcommands (shared rows, a subcommand taking another's).

import { describe, expect, it } from 'vitest';
import {
  checkFlagValue,
  parseFlags,
  parseSubcommand,
  renderEntry,
  subcommandRows,
  unknownFlagMessage,
  type FlagRow,
  type FlagTable,
  type SubcommandTable,
} from '../../../lib/cli/flag-table.js';

const fail = (problem: { message: string }) => new Error(problem.message);
const table = (rows: FlagRow[]): FlagTable => ({ command: 'x', rows, fail });
const refused = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

describe('checkFlagValue', () => {
  const count: FlagRow = { name: 'count', arg: 'N', kind: 'int', min: 1, max: 9, key: 'COUNT', describe: '' };
  it.each([
    ['3', 3],
    ['1', 1],
  ])('--count %s → %s', (raw, value) => expect(checkFlagValue(count, raw, table([count]))).toBe(value));

  it.each([
    ['0', '--count: expected a whole number from 1 to 9, got "0"'],
    ['10', '--count: expected a whole number from 1 to 9, got "10"'],
    ['1e1', '--count: expected a whole number from 1 to 9, got "1e1"'],
    ['+3', '--count: expected a whole number from 1 to 9, got "+3"'],
    [' ', '--count requires a value'],
  ])('--count %j is refused: %s', (raw, message) => expect(refused(() => checkFlagValue(count, raw, table([count])))).toBe(message));

  it('keeps text trimmed, and a blank one only where the row allows it', () => {
    const name: FlagRow = { name: 'name', arg: 'NAME', describe: '' };
    expect(checkFlagValue(name, ' app ', table([name]))).toBe('app');
    expect(checkFlagValue({ ...name, allowBlank: true }, '', table([name]))).toBe('');
  });
});

describe('unknown flags', () => {
  it('are named as typed, or as yargs named them', () => {
    expect(unknownFlagMessage(['--bogus', '-x'], 'option')).toBe('Unknown option: --bogus, -x');
    expect(unknownFlagMessage(['--bogus'], 'argument')).toBe('Unknown argument: bogus');
    expect(unknownFlagMessage(['--bogus', '-x'], 'argument')).toBe('Unknown arguments: bogus, x');
  });

  it('are refused before any value is checked', () => {
    const rows: FlagRow[] = [{ name: 'n', arg: 'N', kind: 'int', describe: '' }];
    expect(refused(() => parseFlags(['--n', 'x', '--what'], table(rows)))).toBe('Unknown option: --what');
  });
});

describe('help entries', () => {
  it('wrap at 80 columns, and a label that reaches the column puts its text on the next line', () => {
    expect(renderEntry('  --a', 'word '.repeat(20).trim(), 10)).toEqual([`  --a     ${'word '.repeat(14).trim()}`, `          ${'word '.repeat(6).trim()}`]);
    expect(renderEntry('  --a-long-flag', 'text', 10)).toEqual(['  --a-long-flag', '          text']);
  });
});

describe('subcommands', () => {
  const shared: FlagRow = { name: 'label', arg: 'NAME', default: 'ralph', describe: '' };
  const subs: SubcommandTable = {
    command: 'tool',
    subcommands: [
      { name: 'run', rows: [{ name: 'fast', describe: '' }], describe: '' },
      { name: 'again', rows: [], sameFlagsAs: 'run', describe: '' },
      { name: 'list', rows: [], describe: '' },
    ],
    shared: { title: 'Shared', rows: [shared], for: ['run', 'again'] },
    rows: [
      { name: 'help', alias: 'h', describe: '' },
      { name: 'version', describe: '' },
    ],
    fail,
  };

  it('take their own rows, the shared ones listed for them, another subcommand’s, and the command’s', () => {
    expect(subcommandRows(subs, 'run').map((row) => row.name)).toEqual(['fast', 'label', 'help', 'version']);
    expect(subcommandRows(subs, 'again').map((row) => row.name)).toEqual(['fast', 'label', 'help', 'version']);
    expect(subcommandRows(subs, 'list').map((row) => row.name)).toEqual(['help', 'version']);
    expect(refused(() => parseSubcommand(['list', '--label', 'x'], subs))).toBe('Unknown option: --label');
    expect(parseSubcommand(['again', '--fast'], subs)).toMatchObject({ name: 'again', values: { fast: true, label: 'ralph' } });
  });

  it('answer help and version from anywhere, and name an unknown subcommand', () => {
    expect(parseSubcommand([], subs)).toBe('help');
    expect(parseSubcommand(['run', '--bogus', '-h'], subs)).toBe('help');
    expect(parseSubcommand(['list', '--version'], subs)).toBe('version');
    expect(refused(() => parseSubcommand(['walk'], subs))).toBe('Unknown command: walk');
  });
});
