// `npm test`'s build of dist/ from lib/: each lib/**/*.ts transpiled on its own to the same path
// under dist/ (what `tsc -b tsconfig.json` writes), by esbuild, without type checking. `npm test`
// type-checks lib/ once, in its typecheck step (tsconfig.test.json covers lib/ and tests/), so
// the build beside it need not check lib/ again: tsc spends most of its time there, esbuild
// transpiles the whole of lib/ in a fraction of a second. Transpiling file by file is what tsc
// writes for this code: the typecheck step runs with isolatedModules, which refuses any file
// whose JavaScript would depend on another file's types. `npm run build` (the package's
// build) still uses tsc. Usage: node scripts/emit-lib.mjs [<sources> <output>] (lib/ and dist/
// by default).

import { readdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const [LIB, DIST] = process.argv.length > 2 ? process.argv.slice(2, 4).map((path) => resolve(path)) : [join(ROOT, 'lib'), join(ROOT, 'dist')];

/** Every .ts file under dir, as a path. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

// A tsc build info left in dist/ would describe other outputs than these: the next `tsc -b`
// builds again instead of trusting it.
rmSync(join(DIST, '.tsbuildinfo'), { force: true });
const entryPoints = sources(LIB);
await build({
  entryPoints,
  outdir: DIST,
  outbase: LIB,
  bundle: false,
  format: 'esm',
  platform: 'node',
  // tsconfig.json's target: the same syntax, class fields defined as tsc defines them for it.
  target: 'es2022',
  tsconfig: join(ROOT, 'tsconfig.json'),
  logLevel: 'warning',
});
process.stdout.write(`emitted ${entryPoints.length} modules of ${relative(ROOT, LIB) || '.'}/ into ${relative(ROOT, DIST) || '.'}/\n`);
