// ralph's own package: its version and where it is installed (for templates and local CLIs).

import { readFileSync } from 'node:fs';

export { PACKAGE_ROOT } from '../platform/package-root.js';

export function readPackageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** `<command> <version>` (e.g. `ralph-setup 0.12.0`): what `--version` prints, for every command. */
export function formatVersionLine(command: string): string {
  return `${command} ${readPackageVersion()}`;
}

/** `--version` anywhere in argv answers at once, as the Bash tool's immediate flags do. */
export function wantsVersion(argv: readonly string[]): boolean {
  return argv.includes('--version');
}
