// Reads a recorded report from tests/fixtures/verify/reports/.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function readReport(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../../../fixtures/verify/reports/${name}`, import.meta.url)), 'utf8');
}
