// Imported first by every bin/ shim: stops at once, with a message a person can act on, when
// Node.js is older than package.json's `engines.node` (the one statement of the minimum),
// instead of failing later on some missing API with a stack trace.

import { readFileSync } from 'node:fs';

/** The minimum `x.y.z` of a `>=x.y[.z]` engines range, or undefined for any other form. */
export function minimumNodeVersion(engines: string | undefined): string | undefined {
  const match = /^\s*>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(engines ?? '');
  return match ? `${match[1]}.${match[2] ?? 0}.${match[3] ?? 0}` : undefined;
}

/**
 * True when version (`20.19.1`) is at least minimum. The same comparison as text/version.ts,
 * kept here because the shims load this file alone, from tsc's output, before anything else
 * (a test holds them to that): it can import nothing of ours.
 */
export function isNodeVersionSupported(version: string, minimum: string): boolean {
  const have = version.split('.').map(Number);
  const need = minimum.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

function requireSupportedNode(): void {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines?: { node?: string } };
  const minimum = minimumNodeVersion(pkg.engines?.node);
  const current = process.versions.node;
  if (minimum === undefined || isNodeVersionSupported(current, minimum)) return;
  process.stderr.write(
    `Error: ralph needs Node.js ${minimum} or newer; this is Node.js ${current} (${process.execPath})\n` +
      'hint: install a current Node.js LTS (https://nodejs.org, or nvm install --lts), then run the command again\n',
  );
  process.exit(1);
}

requireSupportedNode();
