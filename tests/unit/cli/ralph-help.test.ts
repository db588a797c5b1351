// The pre-rendered help that `ralph --help` prints without loading yargs must be exactly what
// the yargs definition renders (the build writes it; this catches a stale or drifted copy).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderHelp } from '../../../lib/cli/ralph-options.js';

describe('ralph --help', () => {
  it('the pre-rendered help in dist matches the yargs definition', async () => {
    const built = readFileSync(new URL('../../../dist/cli/ralph-help.txt', import.meta.url), 'utf8');
    expect(built).toBe(`${await renderHelp()}\n`);
  });
});
