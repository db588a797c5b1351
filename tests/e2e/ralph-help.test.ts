// `ralph --help` answers from the help the build pre-rendered into dist/ (no parsing at
// start-up); it must be exactly what the flag table renders, which `ralph` falls back to whenever
// the fast path does not apply (here: the same flag given twice).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';

describe('ralph --help', () => {
  it('prints the pre-rendered help, byte for byte what the flag table renders', async () => {
    const fast = await runCli('ralph', ['--help']);
    const parsed = await runCli('ralph', ['--help', '-h']);
    expect(fast.code).toBe(0);
    expect(parsed.code).toBe(0);
    expect(fast.stdout).toBe(readFileSync(join(REPO_ROOT, 'dist/cli/ralph-help.txt'), 'utf8'));
    expect(fast.stdout).toContain('--max-loops');
    expect(fast.stdout).toBe(parsed.stdout);
  });
});
