// Shared yargs set-up for the bootstrap commands (setup, enable, enable-ci, import, migrate):
// unknown flags rejected, no built-in help/version (each command prints its own), the last of a
// repeated flag wins, and parse failures become a UsageError the command maps to its exit code.

import yargs, { type Argv } from 'yargs';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
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

/** Parses a non-negative integer flag value; undefined input stays undefined. */
export function parseNonNegativeInteger(flag: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} must be a non-negative integer, got "${text}"`);
  return Number(text);
}


/** This package's version from package.json (for -v/--version). */
