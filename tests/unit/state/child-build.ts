// Builds a few lib/ sources to plain ESM in a temp dir so a test can run them in a child
// process it may SIGKILL (Node 20 cannot run .ts, and dist/ may be absent or mid-build).

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const LIB_DIR = fileURLToPath(new URL('../../../lib/', import.meta.url));

/** Transpiles each `lib/`-relative file (e.g. 'state/lock.ts') to `<outDir>/<same path>.js`. */
export function transpileForChild(files: readonly string[], outDir: string): void {
  writeFileSync(join(outDir, 'package.json'), '{ "type": "module" }\n');
  for (const file of files) {
    const { outputText } = ts.transpileModule(readFileSync(join(LIB_DIR, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    const target = join(outDir, file.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
}
