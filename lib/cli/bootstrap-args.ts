// The yargs definitions of the bootstrap commands (setup, enable, enable-ci, migrate; import's is
// in import-args.ts), on one shared set-up:
// unknown flags rejected, no built-in help/version (each command prints its own), the last of a
// repeated flag wins, and parse failures become a UsageError the command maps to its exit code.

import { DEFAULT_TASK_LABEL } from './task-import-defaults.js';
import yargs, { type Argv } from 'yargs';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** yargs' "Unknown arguments: x, name" as the user typed them: "Unknown option: -x, --name". */
export function formatUnknownOptions(message: string): string {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (!unknown) return message;
  return `Unknown option: ${unknown[1]!.split(', ').map((name) => (name.length === 1 ? `-${name}` : `--${name}`)).join(', ')}`;
}

export function createParser(argv: readonly string[], scriptName: string): Argv {
  return yargs([...argv])
    .scriptName(scriptName)
    // Unknown flags fail; positionals are each command's to check (setup takes a name).
    .strictOptions()
    .exitProcess(false)
    .help(false)
    .version(false)
    .parserConfiguration({ 'duplicate-arguments-array': false })
    .fail((message, error) => {
      throw new UsageError(message || error?.message || 'invalid arguments');
    });
}

/** The flags of ralph-setup; SETUP_HELP lists exactly these (tests/unit/cli/help-sync.test.ts). */
export function setupParser(argv: readonly string[]) {
  return createParser(argv, 'ralph-setup')
    .option('force', { type: 'boolean', default: false })
    .option('help', { alias: 'h', type: 'boolean', default: false })
    .option('version', { type: 'boolean', default: false })
    .option('debug', { type: 'boolean', default: false, hidden: true });
}

/** The flags of ralph-migrate; MIGRATE_HELP lists exactly these (tests/unit/cli/help-sync.test.ts). */
export function migrateParser(argv: readonly string[]) {
  return createParser(argv, 'ralph-migrate')
    .option('help', { alias: 'h', type: 'boolean', default: false })
    .option('version', { type: 'boolean', default: false })
    .option('debug', { type: 'boolean', default: false, hidden: true });
}

/** The flags of ralph-enable; ENABLE_HELP lists exactly these (tests/unit/cli/help-sync.test.ts). */
export function enableParser(argv: readonly string[]) {
  return createParser(argv, 'ralph-enable')
    .option('from', { type: 'string', choices: ['beads', 'github', 'prd'], requiresArg: true })
    .option('prd', { type: 'string', requiresArg: true })
    .option('label', { type: 'string', requiresArg: true })
    .option('limit', { type: 'string', requiresArg: true })
    .option('force', { type: 'boolean', default: false })
    .option('skip-tasks', { type: 'boolean', default: false })
    .option('non-interactive', { type: 'boolean', default: false })
    .option('help', { alias: 'h', type: 'boolean', default: false })
    .option('version', { type: 'boolean', default: false });
}

/** The flags of ralph-enable-ci; ENABLE_CI_HELP lists exactly these (tests/unit/cli/help-sync.test.ts). */
export function enableCiParser(argv: readonly string[]) {
  return createParser(argv, 'ralph-enable-ci')
    .option('from', { type: 'string', choices: ['beads', 'github', 'prd', 'none'], requiresArg: true })
    .option('prd', { type: 'string', requiresArg: true })
    .option('label', { type: 'string', requiresArg: true, default: DEFAULT_TASK_LABEL })
    .option('limit', { type: 'string', requiresArg: true })
    .option('project-name', { type: 'string', requiresArg: true })
    .option('project-type', { type: 'string', requiresArg: true })
    .option('force', { type: 'boolean', default: false })
    .option('json', { type: 'boolean', default: false })
    .option('jq', { type: 'string', requiresArg: true })
    .option('quiet', { type: 'boolean', default: false })
    .option('help', { alias: 'h', type: 'boolean', default: false })
    .option('version', { type: 'boolean', default: false });
}

/** Parses a non-negative integer flag value; undefined input stays undefined. */
export function parseNonNegativeInteger(flag: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} must be a non-negative integer, got "${text}"`);
  return Number(text);
}


/** This package's version from package.json (for -v/--version). */
