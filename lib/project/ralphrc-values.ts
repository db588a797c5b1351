// Values written into a generated .ralphrc: the default tool list and safe quoting.

import type { PackageManager } from './project-context.js';

/** The Bash tool's default ALLOWED_TOOLS (19 items). */
export const DEFAULT_ALLOWED_TOOLS = [
  'Write',
  'Read',
  'Edit',
  'Bash(git add *)',
  'Bash(git commit *)',
  'Bash(git diff *)',
  'Bash(git log *)',
  'Bash(git status)',
  'Bash(git status *)',
  'Bash(git push *)',
  'Bash(git pull *)',
  'Bash(git fetch *)',
  'Bash(git checkout *)',
  'Bash(git branch *)',
  'Bash(git stash *)',
  'Bash(git merge *)',
  'Bash(git tag *)',
  'Bash(npm *)',
  'Bash(pytest)',
] as const;

/** The default list plus the detected package manager, so the agent can build and test. */
export function allowedToolsFor(packageManager: PackageManager | undefined): string[] {
  const tools: string[] = [...DEFAULT_ALLOWED_TOOLS];
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
