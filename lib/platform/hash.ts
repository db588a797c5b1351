// Content hashes: the hex SHA-256 of a text, cut to a length. node:crypto is loaded at the first
// hash, not at import: read-only commands (`--circuit-status`) import the modules that hash and
// never hash (start-up budgets, docs/performance.md).

import { createRequire } from 'node:module';

const requireBuiltin = createRequire(import.meta.url);

export function hashText(text: string, length = 64): string {
  const crypto = requireBuiltin('node:crypto') as typeof import('node:crypto');
  return crypto.createHash('sha256').update(text).digest('hex').slice(0, length);
}
