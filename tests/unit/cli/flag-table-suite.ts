// The checks every command's flag table gets (one test file per command calls this): a case for
// each row (argv → options), its alias the same, and generated from the rows themselves: an
// unknown flag, each value flag without its value, each bounded number one past its bounds and
// not a number — all refused with a message naming the flag; and --help naming every row with
// its description and default. A new row without a case fails the first test.

import { expect, it } from 'vitest';
import { describeRow, flagLabel, type FlagRow } from '../../../lib/cli/flag-table.js';

export interface FlagTableSuite {
  /** Every row of the table (or of one subcommand's). */
  rows: readonly FlagRow[];
  /** The words before the flag of a generated case: a subcommand, and what makes the rest valid. */
  prefix?: string[];
  /** A row's own words before it, where the row goes only with another flag (`--port` with `--web`). */
  rowPrefix?: Record<string, string[]>;
  /** Parses argv (the prefix included) as the command does; throws on a usage error. */
  parse: (argv: string[]) => unknown;
  /** One case per row, by name: its argv (the prefix included) and the options it gives (a partial match). */
  cases: Record<string, [string[], unknown]>;
  /** The command's --help text. */
  help: string;
}

/** The message of the error parsing `argv` throws; fails the test when it throws none. */
export function parseError(parse: (argv: string[]) => unknown, argv: string[]): string {
  try {
    parse(argv);
  } catch (error) {
    if (error instanceof Error) return error.message;
    throw error;
  }
  throw new Error(`${JSON.stringify(argv)} was accepted`);
}

const collapse = (text: string) => text.replace(/\s+/g, ' ');

export function checkFlagTable(suite: FlagTableSuite): void {
  const { rows, parse, cases, help } = suite;
  const prefix = suite.prefix ?? [];
  const prefixOf = (name: string) => suite.rowPrefix?.[name] ?? prefix;

  it('has a case for every row (and none for a flag it lacks)', () => {
    expect(Object.keys(cases).sort()).toEqual(rows.map((row) => row.name).sort());
  });

  it.each(Object.entries(cases))('--%s: argv → options', (name, [argv, expected]) => {
    expect(
      argv.some((word) => word === `--${name}` || word.startsWith(`--${name}=`) || word === `--no-${name}`),
      'the case gives its flag',
    ).toBe(true);
    if (typeof expected === 'string') expect(parse(argv)).toBe(expected);
    else expect(parse(argv)).toMatchObject(expected as object);
  });

  const aliased = rows.filter((row) => row.alias !== undefined);
  if (aliased.length > 0) {
    it.each(aliased.map((row) => [row.alias!, row.name] as const))('%s is --%s', (alias, name) => {
      const [argv] = cases[name]!;
      const spelled = alias.length === 1 ? `-${alias}` : `--${alias}`;
      const other = argv.map((word) => (word === `--${name}` ? spelled : word));
      expect(other).not.toEqual(argv);
      expect(parse(other)).toEqual(parse(argv));
    });
  }

  it('refuses an unknown flag, naming it', () => {
    expect(parseError(parse, [...prefix, '--no-such-flag'])).toMatch(/no-such-flag/);
  });

  const valued = rows.filter((row) => row.arg !== undefined);
  if (valued.length > 0) {
    it.each(valued.map((row) => [row.name]))('--%s without its value is refused, naming the flag', (name) => {
      expect(parseError(parse, [...prefixOf(name), `--${name}`])).toContain(`--${name}`);
    });
  }

  const numbers = rows.filter((row) => row.kind === 'int' || row.kind === 'number');
  if (numbers.length > 0) {
    it.each(numbers.map((row) => [row.name, row] as const))('--%s refuses a value out of bounds or not a number, naming the flag', (name, row) => {
      const step = row.kind === 'int' ? 1 : 0.05;
      if (row.max !== undefined) expect(parseError(parse, [...prefixOf(name), `--${name}`, String(row.max + step)])).toContain(`--${name}`);
      if ((row.min ?? 0) > 0) expect(parseError(parse, [...prefixOf(name), `--${name}`, String(Number((row.min! - step).toFixed(2)))])).toContain(`--${name}`);
      expect(parseError(parse, [...prefixOf(name), `--${name}`, 'lots'])).toContain(`--${name}`);
      if (row.max !== undefined) expect(() => parse([...prefixOf(name), `--${name}`, String(row.max)])).not.toThrow();
    });
  }

  it('--help names every row with its description and default (hidden rows left out)', () => {
    const text = collapse(help);
    for (const row of rows) {
      const label = collapse(flagLabel(row).trim());
      if (row.hidden) expect(text, row.name).not.toContain(`--${row.name} `);
      else {
        expect(text, row.name).toContain(label);
        expect(text, row.name).toContain(collapse(describeRow(row)));
      }
    }
  });
}
