// Imports go down the layers only: the pure decisions (core) import nothing but themselves, the
// error type and the state files' types (one model per file, issue #14); the loop never imports the command line; verification does not know the run
// record (the record imports verification's types). A new import across a line fails here.
// eslint.config.js holds the same lines and also sees Node built-ins in pure code (lint-layers.test.ts).

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const LIB = join(REPO_ROOT, 'lib');

/** Each lib file and the lib folders (or root files) it imports from. */
function importsByFile(): Array<{ file: string; layer: string; targets: string[] }> {
  const files = readdirSync(LIB, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  return files.map((file) => {
    const text = readFileSync(join(LIB, file), 'utf8');
    const layer = file.includes('/') ? file.split('/')[0]! : '(root)';
    const targets = [...text.matchAll(/^(?:import|export)[^'"]*from '(\.[^']+)'/gm)].map((m) => {
      const target = relative(LIB, join(LIB, file, '..', m[1]!));
      return target.includes('/') ? target.split('/')[0]! : target;
    });
    return { file, layer, targets };
  });
}

const FORBIDDEN: Record<string, (target: string) => boolean> = {
  core: (target) => !['core', 'state', 'errors.js'].includes(target),
  loop: (target) => target === 'cli',
  parallel: (target) => target === 'cli' || target === 'monitor',
  verify: (target) => target === 'session-record' || target === 'loop' || target === 'cli',
  state: (target) => ['loop', 'cli', 'monitor', 'agents'].includes(target),
  agents: (target) => ['loop', 'cli', 'monitor'].includes(target),
};

describe('imports go down the layers', () => {
  for (const [layer, forbidden] of Object.entries(FORBIDDEN)) {
    it(`${layer} imports nothing above it`, () => {
      const crossings = importsByFile()
        .filter((f) => f.layer === layer)
        .flatMap((f) => f.targets.filter(forbidden).map((t) => `${f.file} → ${t}`));
      expect(crossings).toEqual([]);
    });
  }

  it('sees every lib file (the check itself)', () => {
    const all = importsByFile();
    expect(all.length).toBeGreaterThan(100);
    expect(all.find((f) => f.file === 'loop/iteration.ts')?.targets).toContain('agents');
  });
});
