// Values written into a generated .ralphrc: each key's default as the schema gives it, the tool
// list for the detected package manager, and safe quoting.

import { CONFIG_SCHEMA, splitAllowedTools, type ConfigKey, type ConfigValue } from '../config/schema.js';
import type { PackageManager } from './project-context.js';

/** A value as a .ralphrc line writes it: a number or switch bare, text and lists double-quoted. */
export function ralphrcText(value: ConfigValue): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return quoteRalphrcValue(Array.isArray(value) ? value.join(',') : value);
}

/** `{{KEY}}` of the template for every config key: its default, from the schema (never typed in the template). */
export function defaultRalphrcValues(): Record<ConfigKey, string> {
  const entries = Object.entries(CONFIG_SCHEMA).map(([key, spec]) => [key, ralphrcText(spec.default)]);
  return Object.fromEntries(entries) as Record<ConfigKey, string>;
}

/** The default list plus the detected package manager, so the agent can build and test. */
export function allowedToolsFor(packageManager: PackageManager | undefined): string[] {
  const tools = splitAllowedTools(CONFIG_SCHEMA.ALLOWED_TOOLS.default as string);
  if (packageManager && packageManager !== 'npm') tools.push(`Bash(${packageManager} *)`);
  if (packageManager === 'pip') tools.push('Bash(pytest *)');
  return tools;
}

/**
 * A double-quoted .ralphrc value. `\`, `"`, `$` and backticks are backslash-escaped, so the
 * reader takes the value literally (a title like `$(rm -rf ~)` stays text) and a Bash
 * `source` of the same file would read the same string. Newlines become spaces.
 */
export function quoteRalphrcValue(value: string): string {
  const oneLine = value.replace(/[\r\n]+/g, ' ');
  return `"${oneLine.replace(/[\\"$`]/g, (ch) => `\\${ch}`)}"`;
}
