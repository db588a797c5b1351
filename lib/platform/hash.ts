// Content hashes (the hex SHA-256 of a text, cut to a length) and unguessable names. node:crypto
// is loaded at first use, not at import: read-only commands (`--circuit-status`) import the
// modules that hash or name and never do (start-up budgets, docs/performance.md).

import { createRequire } from 'node:module';

const requireBuiltin = createRequire(import.meta.url);

const crypto = () => requireBuiltin('node:crypto') as typeof import('node:crypto');

export function hashText(text: string, length = 64): string {
  return crypto().createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** `bytes` random bytes from the system's secure source, as hex: a name no other process can guess. */
export function randomHex(bytes: number): string {
  return crypto().randomBytes(bytes).toString('hex');
}
