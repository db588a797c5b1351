// ralph's own package: its version and where it is installed (for templates and local CLIs).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package root (the folder holding package.json, bin/, dist/, templates/). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function readPackageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
