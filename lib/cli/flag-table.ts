// A command's flags as rows of one table: each row names the flag, its alias, the value it takes
// (kind, bounds, choices), its default and its help text. Parsing (read-argv.ts), the check of
// each value, the errors naming the flag and the `--help` lines all come from the rows, so a flag
// cannot be accepted without a help line or documented without being accepted. Commands with
// subcommands (ralph-queue, ralph-fleet) have a table per subcommand. No config schema here: a
// row that sets a config key takes its kind and bounds from the schema where it is written
// (ralph/ralph-flags.ts), which keeps this module light for start-up.

import { checkNumberText } from '../text/number-text.js';
import { readArgv, type ReadArgv } from './read-argv.js';

export type ValueKind = 'int' | 'number' | 'text';

/** Why a flag or its value is refused: the message (naming the flag), and optionally more lines and a hint. */
export interface FlagProblem {
  message: string;
  details?: string[];
  hint?: string;
}

export interface FlagRow {
  name: string;
  /** `-x` when one letter, else another long spelling (`--github-label`). */
  alias?: string;
  /** Placeholder of the value the flag takes (`NUM`, `FILE`); none for a switch. */
  arg?: string;
  describe: string;
  /** The value's kind (text when not said); a number is checked as in .ralphrc (text/number-text.ts). */
  kind?: ValueKind;
  min?: number;
  max?: number;
  choices?: readonly string[];
  /** The value when the flag is not given, as help shows it. A switch is off unless this says true. */
  default?: string | number | boolean;
  /** Said after the default in help ("= unlimited"); `false`: help shows no default. */
  defaultNote?: string | false;
  /** The config key the flag sets. */
  key?: string;
  /**
   * The message for a value the flag refuses (for a string message a blank value too): not a
   * number of its kind within its bounds, not one of its choices. Without it, the message names
   * the range (in the words of .ralphrc) or the choices. A flag that sets a config key has none
   * for a number, so that the flag and .ralphrc refuse a value in the same words.
   */
  invalid?: string | ((raw: string) => string);
  /** The hint under a refused value (else the table's). */
  hint?: string;
  /** A blank value is kept (else refused: `--name requires a value`). */
  allowBlank?: boolean;
  /** A check of the row's own, after its kind, bounds and choices. */
  check?: (value: string) => FlagProblem | undefined;
  /** Accepted but left out of help (`--debug`). */
  hidden?: boolean;
  /** The help section the row is listed under (the table's first when not said). */
  section?: string;
}

export interface FlagTable {
  /** The command as typed (`ralph-stats`, `ralph-queue add`), for messages. */
  command: string;
  rows: readonly FlagRow[];
  /** How an unknown flag is named: `Unknown option: --x, -y`, or yargs' `Unknown argument: x` (kept where scripts read it). */
  unknownStyle?: 'option' | 'argument';
  /** The error a usage problem becomes (its type and exit code are the command's). */
  fail: (problem: FlagProblem) => Error;
}

export type FlagValue = string | number | boolean;

export interface ParsedFlags {
  /** Each row's value: the last one given, checked (a switch a boolean, a number a number, text trimmed), else its default. */
  values: Record<string, FlagValue | undefined>;
  /** The rows given on the command line, with every value each got, in order (unchecked). */
  given: ReadArgv['values'];
  /** Words that are no flag's, in order (everything after `--` included). */
  positional: string[];
}

/** `-h` / `--help`, the same row in every table. */
export const HELP_ROW: FlagRow = { name: 'help', alias: 'h', describe: 'Show this help' };
/** `--version`, the same row in every table (`-v` is never the version). */
export const VERSION_ROW: FlagRow = { name: 'version', describe: 'Show the version' };
/** `--debug`: stack traces for internal errors; read by the error funnel, not listed in help. */
export const DEBUG_ROW: FlagRow = { name: 'debug', describe: 'Print stack traces for internal errors', hidden: true };

/** The argv shape of each row, for read-argv.ts. */
export function argvFlags(rows: readonly FlagRow[]): Array<{ name: string; alias?: string; takesValue: boolean }> {
  return rows.map((row) => ({ name: row.name, alias: row.alias, takesValue: row.arg !== undefined }));
}

/** Splits argv into the table's flags, refuses unknown flags, and checks every given value. */
export function parseFlags(argv: readonly string[], table: FlagTable): ParsedFlags {
  const read = readArgv(argv, argvFlags(table.rows));
  if (read.unknown.length > 0)
    throw table.fail({ message: unknownFlagMessage(read.unknown, table.unknownStyle ?? 'option') + versionNote(read.unknown, table) });
  const values: ParsedFlags['values'] = {};
  for (const row of table.rows) {
    const given = read.values.get(row.name);
    if (given === undefined) values[row.name] = row.arg === undefined ? row.default === true : row.default;
    else if (row.arg === undefined) values[row.name] = Boolean(given.at(-1));
    else values[row.name] = checkFlagValue(row, String(given.at(-1)), table);
  }
  return { values, given: read.values, positional: read.positional };
}

/** `Unknown option: --bogus, -x` (as typed), or yargs' `Unknown argument(s): bogus, x`. */
export function unknownFlagMessage(typed: readonly string[], style: 'option' | 'argument'): string {
  if (style === 'option') return `Unknown option: ${typed.join(', ')}`;
  const names = typed.map((flag) => flag.replace(/^-+/, ''));
  return `Unknown argument${names.length > 1 ? 's' : ''}: ${names.join(', ')}`;
}

/** `-v` is no flag of ours but --verbose to ralph and the version to many tools: say which one this command has. */
function versionNote(typed: readonly string[], table: FlagTable): string {
  if (!typed.includes('-v') || !table.rows.some((row) => row.name === 'version')) return '';
  return ` (-v is not a flag of ${table.command}: --version shows its version)`;
}

/** One value of a row, checked against its kind, bounds, choices and own check: a number for int/number rows, else the trimmed text. */
export function checkFlagValue(row: FlagRow, raw: string, table: Pick<FlagTable, 'fail'>): string | number {
  const refuse = (message: string | ((raw: string) => string)) =>
    table.fail({ message: typeof message === 'function' ? message(raw) : message, hint: row.hint });
  const text = raw.trim();
  if (text === '' && !row.allowBlank) throw refuse(typeof row.invalid === 'string' ? row.invalid : `--${row.name} requires a value`);
  const kind = row.kind ?? 'text';
  if (kind === 'int' || kind === 'number') {
    // The rule and the words of .ralphrc and env (text/number-text.ts), after the flag's name.
    const checked = checkNumberText(raw, kind, row);
    if (!checked.ok) throw refuse(row.invalid ?? `--${row.name}: ${checked.message}`);
    checkOwn(row, raw, table);
    return checked.value;
  }
  if (row.choices && !row.choices.includes(text)) {
    throw refuse(row.invalid ?? `--${row.name} must be one of ${row.choices.join(', ')}, got ${JSON.stringify(raw)}`);
  }
  checkOwn(row, raw, table);
  return row.allowBlank ? raw : text;
}

function checkOwn(row: FlagRow, value: string, table: Pick<FlagTable, 'fail'>): void {
  const problem = row.check?.(value);
  if (problem) throw table.fail({ ...problem, hint: problem.hint ?? row.hint });
}

// ---- help ----

const WIDTH = 80;

/** A row as help shows it: `-c, --calls NUM` or `    --max-loops NUM`. */
export function flagLabel(row: FlagRow): string {
  const short = row.alias !== undefined && row.alias.length === 1;
  const name = row.arg === undefined && row.default === true ? `no-${row.name}` : row.name;
  return `${short ? `-${row.alias}, ` : '    '}--${name}${row.arg ? ` ${row.arg}` : ''}`;
}

/** A row's help text: its description, its other spelling, then its default (unless off or empty). */
export function describeRow(row: FlagRow, value: unknown = row.default): string {
  const also = row.alias !== undefined && row.alias.length > 1 ? ` (also --${row.alias})` : '';
  const text = `${row.describe}${also}`;
  if (row.arg === undefined || row.defaultNote === false) return text;
  if (value === undefined || value === false || value === '' || (Array.isArray(value) && value.length === 0)) return text;
  const shown = typeof value === 'boolean' ? (value ? 'on' : 'off') : Array.isArray(value) ? value.join(',') : String(value);
  return `${text} (default: ${shown}${row.defaultNote ?? ''})`;
}

export interface HelpLinesOptions {
  /** Spaces before each label. */
  indent?: number;
  /** The column descriptions start at; a longer label puts its description on the next line. */
  column: number;
  describe?: (row: FlagRow) => string;
}

/** The help lines of rows: label, then the description wrapped at 80 columns. */
export function renderRowLines(rows: readonly FlagRow[], options: HelpLinesOptions): string[] {
  const indent = ' '.repeat(options.indent ?? 2);
  const lines: string[] = [];
  for (const row of rows.filter((r) => !r.hidden)) {
    lines.push(...renderEntry(`${indent}${flagLabel(row)}`, (options.describe ?? describeRow)(row), options.column));
  }
  return lines;
}

/** One help entry: a label and its text wrapped at `column` (on the next line when the label reaches it). */
export function renderEntry(label: string, text: string, column: number): string[] {
  const [first = '', ...rest] = wrapWords(text, WIDTH - column);
  const pad = ' '.repeat(column);
  if (label.length > column - 2) return [label, ...[first, ...rest].map((line) => `${pad}${line}`)];
  return [`${label.padEnd(column)}${first}`, ...rest.map((line) => `${pad}${line}`)];
}

/** The column that fits every visible row's label (plus a gap), at most `max`. */
export function labelColumn(rows: readonly FlagRow[], indent = 2, max = 32): number {
  return Math.min(max, Math.max(...rows.filter((r) => !r.hidden).map((row) => indent + flagLabel(row).length)) + 2);
}

export interface HelpText {
  /** Usage line(s) and what the command does. */
  header: string;
  rows: readonly FlagRow[];
  /** Exit codes, examples, … */
  footer?: string;
  column?: number;
}

/** `--help`: the header, the rows under their sections (in the order they first appear), the footer. */
export function renderHelp(help: HelpText): string {
  const column = help.column ?? labelColumn(help.rows);
  const sections = [...new Set(help.rows.filter((r) => !r.hidden).map((row) => row.section ?? 'Options'))];
  const blocks = sections.map((section) =>
    [
      `${section}:`,
      ...renderRowLines(
        help.rows.filter((row) => (row.section ?? 'Options') === section),
        { column },
      ),
    ].join('\n'),
  );
  return `${[help.header, ...blocks, ...(help.footer ? [help.footer] : [])].join('\n\n')}\n`;
}

export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

// ---- commands with subcommands (`ralph-queue add …`, `ralph-fleet init …`) ----

export interface SubcommandRow {
  name: string;
  /** Its positionals as help shows them (`N [N...]`). */
  args?: string;
  describe: string;
  /** Its own flags (the table's shared ones are added when it is listed in `shared.for`). */
  rows: readonly FlagRow[];
  /** Takes the flags of this other subcommand: help gives its usage line, not the flag lines again. */
  sameFlagsAs?: string;
}

export interface SubcommandTable {
  command: string;
  subcommands: readonly SubcommandRow[];
  /** Flags several subcommands take, listed once in help. */
  shared?: { title: string; rows: readonly FlagRow[]; for: readonly string[] };
  /** Flags of the command itself, before or after the subcommand (`--help`, `--version`). */
  rows: readonly FlagRow[];
  unknownStyle?: 'option' | 'argument';
  fail: (problem: FlagProblem) => Error;
}

/** Every flag row of one subcommand: its own, the shared ones it takes, and the command's. */
export function subcommandRows(table: SubcommandTable, name: string): FlagRow[] {
  const sub = table.subcommands.find((s) => s.name === name);
  if (sub === undefined) return [];
  const own = sub.sameFlagsAs === undefined ? sub.rows : (table.subcommands.find((s) => s.name === sub.sameFlagsAs)?.rows ?? []);
  const shared = table.shared && table.shared.for.includes(name) ? table.shared.rows : [];
  return [...own, ...shared, ...table.rows];
}

export interface ParsedSubcommand extends ParsedFlags {
  name: string;
}

/**
 * The subcommand (the first word) and its flags. No word, `help`, or a help flag anywhere asks
 * for help; a version flag anywhere for the version (as the Bash tool's immediate flags).
 */
export function parseSubcommand(argv: readonly string[], table: SubcommandTable): ParsedSubcommand | 'help' | 'version' {
  const spellings = (name: string) =>
    table.rows
      .filter((row) => row.name === name)
      .flatMap((row) => [`--${row.name}`, ...(row.alias ? [row.alias.length === 1 ? `-${row.alias}` : `--${row.alias}`] : [])]);
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || argv.some((word) => spellings('help').includes(word))) return 'help';
  if (argv.some((word) => spellings('version').includes(word))) return 'version';
  if (!table.subcommands.some((sub) => sub.name === name)) throw table.fail({ message: `Unknown command: ${name}` });
  const parsed = parseFlags(rest, {
    command: `${table.command} ${name}`,
    rows: subcommandRows(table, name),
    unknownStyle: table.unknownStyle,
    fail: table.fail,
  });
  return { name, ...parsed };
}

/** The Commands section (each subcommand, its flags indented below it), then the shared and the command's own flags. */
export function renderSubcommandHelp(table: SubcommandTable, text: { header: string; footer?: string; column: number }): string {
  const { column } = text;
  const commands = ['Commands:'];
  for (const sub of table.subcommands) {
    const own = sub.sameFlagsAs === undefined ? sub.rows : [];
    commands.push(...renderEntry(`  ${sub.name}${sub.args ? ` ${sub.args}` : ''}`, sub.describe, column));
    commands.push(...renderRowLines(own, { column }));
  }
  const blocks = [commands.join('\n')];
  if (table.shared) blocks.push([`${table.shared.title}:`, ...renderRowLines(table.shared.rows, { column })].join('\n'));
  blocks.push(['Options:', ...renderRowLines(table.rows, { column })].join('\n'));
  return `${[text.header, ...blocks, ...(text.footer ? [text.footer] : [])].join('\n\n')}\n`;
}
