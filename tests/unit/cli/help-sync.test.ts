// Each command's --help lists exactly the flags its yargs definition accepts: a flag added to the
// parser without a help line, or a help line for a flag the parser rejects, fails here. (`ralph`'s
// own help is rendered from its flag table and checked in ralph-flags.test.ts.)

import type { Argv } from 'yargs';
import { describe, expect, it } from 'vitest';
import { enableCiParser, enableParser, migrateParser, setupParser } from '../../../lib/cli/bootstrap-args.js';
import { importParser } from '../../../lib/cli/import-args.js';
import { ENABLE_CI_HELP } from '../../../lib/cli/messages-enable-ci.js';
import { ENABLE_HELP } from '../../../lib/cli/messages-enable.js';
import { IMPORT_HELP } from '../../../lib/cli/messages-import.js';
import { MIGRATE_HELP, SETUP_HELP } from '../../../lib/cli/messages-setup.js';
import { MONITOR_HELP, monitorParser } from '../../../lib/cli/monitor-args.js';

interface ParsedOptions {
  boolean: string[];
  string: string[];
  number: string[];
  hiddenOptions: string[];
}

/** The long flags the parser accepts, hidden ones (--debug) left out. */
function parserFlags(parser: Argv): string[] {
  // getOptions() is yargs' own (untyped in its .d.ts): the option names by type.
  const options = (parser as unknown as { getOptions(): ParsedOptions }).getOptions();
  const names = [...options.boolean, ...options.string, ...options.number].filter((name) => name.length > 1);
  return [...new Set(names.filter((name) => !options.hiddenOptions.includes(name)))].sort();
}

/** The long flags the help text documents: each option line starts with `-x, --flag` or `--flag`. */
function helpFlags(help: string): string[] {
  const flags = [...help.matchAll(/^ {2,}(?:-[a-zA-Z], )?--([a-z][a-z-]*)/gm)].map((m) => m[1]!);
  return [...new Set(flags)].sort();
}

const COMMANDS: Array<[string, Argv, string]> = [
  ['ralph-setup', setupParser([]), SETUP_HELP],
  ['ralph-migrate', migrateParser([]), MIGRATE_HELP],
  ['ralph-enable', enableParser([]), ENABLE_HELP],
  ['ralph-enable-ci', enableCiParser([]), ENABLE_CI_HELP],
  ['ralph-import', importParser([]), IMPORT_HELP],
  ['ralph-monitor', monitorParser([]), MONITOR_HELP],
];

describe('--help lists exactly the flags each command accepts', () => {
  for (const [name, parser, help] of COMMANDS) {
    it(name, () => {
      expect(helpFlags(help)).toEqual(parserFlags(parser));
    });
  }

  it('finds option lines in both help styles (the check itself)', () => {
    expect(helpFlags('Options:\n  -h, --help     Show help\n  --force        Overwrite\nSee ralph --monitor\n')).toEqual(['force', 'help']);
  });
});
