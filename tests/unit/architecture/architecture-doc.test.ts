// docs/ARCHITECTURE.md is the map of lib/: its folder table names every folder there, and no
// folder that is gone. A folder added without its row fails here, and so does a file the page
// names that is gone or moved.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

  it('names no file of lib/ that is not there', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]));
    const inLib = files(join(REPO_ROOT, 'lib')).map((file) => file.slice(join(REPO_ROOT, 'lib').length + 1));
    const named = [...new Set([...doc.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => m[1]!))];
    expect(named.length).toBeGreaterThan(50);
    // A path with a folder is under lib/ (or the repository); a bare name is in the row's folder.
    const missing = named.filter((name) =>
      name.includes('/') ? !inLib.includes(name) && !existsSync(join(REPO_ROOT, name)) : !inLib.some((file) => file === name || file.endsWith(`/${name}`)),
    );
    expect(missing).toEqual([]);
  });
});
