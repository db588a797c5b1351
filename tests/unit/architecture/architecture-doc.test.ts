// docs/ARCHITECTURE.md is the map of lib/: its folder table names every folder there, and no
// folder that is gone. A folder added without its row fails here.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';

/** The folders named in the first cell of each row of the "Folders of `lib/`" table. */
function foldersInTable(doc: string): string[] {
  const table = doc.split('## Folders of `lib/`')[1]?.split('\n## ')[0] ?? '';
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([\w-]+)\/`/g)].map((m) => m[1]!));
}

describe('docs/ARCHITECTURE.md', () => {
  it('names every folder of lib/ in its folder table, and no other', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
    const folders = readdirSync(join(REPO_ROOT, 'lib'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(foldersInTable(doc).sort()).toEqual(folders.sort());
  });
});
