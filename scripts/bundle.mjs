// Build step after tsc: bundles each bin's entry module (dist/cli/<name>.js) with esbuild into
// dist/bundle/<name>.js, which the bin/ shim imports. Start-up cost is mostly Node loading and
// compiling modules one file at a time (zod alone is ~150 files), so the read-only commands
// (`ralph-monitor --once`, `--circuit-status`) load a few chunks instead (start-up budgets,
// DESIGN.md §6). Code splitting keeps every lazy `import()` lazy: a command still loads only
// what its path needs. zod is inlined with its locales cut to English, the one it uses (the
// others are ~45 % of its bytes and never loaded by ralph); every other package stays external
// because yargs, zx and jq-wasm read files beside themselves and are loaded lazily anyway.
// Chunks sit in dist/bundle/, one level below dist/ like dist/cli/, so modules that find files
// from `import.meta.url` (`../../package.json`, `../../bin/…`, `../cli/ralph-help.txt`)
// resolve the same from either. esbuild is a devDependency: the build needs it, nothing at
// run time does.

import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'dist', 'bundle');

/** The bundle names the bin/ shims import (`../dist/bundle/<name>.js`): one entry each. */
function bundleEntries() {
  const entries = {};
  for (const shim of readdirSync(join(ROOT, 'bin'))) {
    const match = /\.\.\/dist\/bundle\/([\w-]+)\.js/.exec(readFileSync(join(ROOT, 'bin', shim), 'utf8'));
    if (!match) throw new Error(`bin/${shim} does not import a ../dist/bundle/<name>.js module`);
    entries[match[1]] = join(ROOT, 'dist', 'cli', `${match[1]}.js`);
  }
  return entries;
}

const isZod = (path) => path === 'zod' || path.startsWith('zod/');
const inZod = (importer) => importer.includes('/node_modules/zod/');

/** zod inlined, other packages external; zod's locale index cut to its English locale. */
const packagesPlugin = {
  name: 'ralph-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (isZod(args.path) || inZod(args.importer) ? undefined : { path: args.path, external: true }));
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      inZod(args.importer) ? { path: join(args.resolveDir, dirname(args.path), 'en.js'), namespace: 'zod-locales' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};

// Built beside, then swapped in: a bin started meanwhile sees the old bundle or the new one.
const next = `${OUT}-next`;
const old = `${OUT}-old`;
rmSync(next, { recursive: true, force: true });
await build({
  entryPoints: bundleEntries(),
  outdir: next,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  // Error class names and `--debug` stack frames stay readable.
  keepNames: true,
  plugins: [packagesPlugin],
  logLevel: 'warning',
});
rmSync(old, { recursive: true, force: true });
if (existsSync(OUT)) renameSync(OUT, old);
renameSync(next, OUT);
rmSync(old, { recursive: true, force: true });
