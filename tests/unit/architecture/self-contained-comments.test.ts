// Comments stand on their own: a maintainer with only this repository must be able to follow
// every one. So no file under lib/, scripts/ or tests/ cites a numbered section of a document
// that is not here — the design brief, the Bash tool's reference, the Claude CLI's contract, an
// issue — nor names the design brief. The fact a comment relies on is said in the comment, or
// the comment points to a page under docs/.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const ROOTS = ['lib', 'scripts', 'tests'];
// Written with escapes so this file does not match itself.
const OUTSIDE_CITATIONS = [/DESIGN\.md/, /\u00a7\s?\d/];

function filesUnder(root: string): string[] {
  return readdirSync(join(REPO_ROOT, root), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

function citationsIn(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => (OUTSIDE_CITATIONS.some((re) => re.test(line)) ? [`${relative(REPO_ROOT, file)}:${i + 1}: ${line.trim()}`] : []));
}

describe('comments stand on their own', () => {
  it('no file under lib/, scripts/ or tests/ cites a document that is not in the repository', () => {
    const found = ROOTS.flatMap(filesUnder).flatMap(citationsIn);
    expect(found).toEqual([]);
  });
});
