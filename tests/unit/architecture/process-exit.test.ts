// Exits belong to the command line: a function below lib/cli returns an exit code or an outcome,
// and the command sets it. One place is the exception, on purpose: a second stop signal ends the
// process at once (loop/stop-signal.ts), while the run is still unwinding from the first.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const LIB = join(REPO_ROOT, 'lib');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('process.exit', () => {
  it('is called only under lib/cli/, and by the second stop signal', () => {
    const calling = sourceFiles(LIB)
      .filter((file) => /\bprocess\.exit\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(LIB, file))
      .filter((file) => !file.startsWith('cli/'));
    expect(calling).toEqual(['loop/stop-signal.ts']);
  });
});
