// One name, one meaning: no two files of lib/ export a type, class or function of the same
// name. Two `saveRunState`s that save different things, or two `RunSummary` types of different
// shapes, let a reader (and an auto-import) take one for the other. The commands' entry points
// are each called `main` on purpose.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const LIB = join(REPO_ROOT, 'lib');
const SHARED_ON_PURPOSE = new Set(['main']);

function exportedNames(): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const file of readdirSync(LIB, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(LIB, file), 'utf8');
    for (const m of text.matchAll(/^export (?:declare )?(?:async )?(?:abstract )?(?:interface|type|class|enum|function\*?|const|let) (\w+)/gm)) {
      byName.set(m[1]!, [...(byName.get(m[1]!) ?? []), file]);
    }
  }
  return byName;
}

describe('one name, one meaning', () => {
  it('no two files of lib/ export the same name', () => {
    const twice = [...exportedNames()]
      .filter(([name, files]) => files.length > 1 && !SHARED_ON_PURPOSE.has(name))
      .map(([name, files]) => `${name}: ${files.join(', ')}`);
    expect(twice).toEqual([]);
  });

  it('sees the exports (the check itself)', () => {
    const names = exportedNames();
    expect(names.get('runLoop')).toEqual(['loop/run-loop.ts']);
    expect(names.get('RunState')).toEqual(['loop/run.ts']);
    expect(names.get('main')!.length).toBeGreaterThan(3);
  });
});
