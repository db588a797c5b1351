// Build step after tsc: bundles each bin's entry module (dist/cli/<name>/<name>.js) with esbuild into
// dist/bundle-<name>/<name>.js, which the bin/ shim imports. Start-up cost is mostly Node loading and
// compiling modules one file at a time (zod alone is ~150 files), so the read-only commands
// (`ralph-monitor --once`, `--circuit-status`) load a few chunks instead (start-up budgets,
// docs/performance.md). Code splitting keeps every lazy `import()` lazy: a command still loads only
// what its path needs. zod is inlined with its locales cut to English, the one it uses (the
// others are ~45 % of its bytes and never loaded by ralph); every other package stays external
// because jq-wasm reads files beside itself and is loaded lazily anyway.
// Each bin is bundled on its own, into dist/bundle-<name>/: one build for all nine would split
// the code shared by any two of them into chunks of its own, and a command would then load
// three to five times more files (each file costs a resolve, a read and a compile). The
// folders sit one level below dist/ like dist/cli/, so modules that find files from
// `import.meta.url` (`../../package.json`, `../../bin/…`, `../cli/ralph-help.txt`) resolve the
// same from either. Within a bin the same holds at a smaller scale: a command's share of the
// chunks common to all of the bin's commands is a dozen files, so ralph's quick answers
// (`--status`, `--circuit-status`, `--config`) and the rest of ralph (`ralph-main`) are built apart (APART)
// and the entry only chooses one. ralph-monitor's views that keep running (`monitor-live`) are
// built apart the same way, so the entry shares no chunk with them and `ralph-monitor --once`
// loads that one file. esbuild is a devDependency: the build needs it, nothing at run time does.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');

/** The bundle names the bin/ shims import (`../dist/bundle-<name>/<name>.js`): one entry each. */
function bundleEntries() {
  const entries = {};
  for (const shim of readdirSync(join(ROOT, 'bin'))) {
    const match = /\.\.\/dist\/bundle-([\w-]+)\/\1\.js/.exec(readFileSync(join(ROOT, 'bin', shim), 'utf8'));
    if (!match) throw new Error(`bin/${shim} does not import a ../dist/bundle-<name>/<name>.js module`);
    entries[match[1]] = join(ROOT, 'dist', 'cli', match[1], `${match[1]}.js`);
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

/**
 * Modules of a bin built apart from its bundle, into the same folder under their own name: the
 * bin's bundle imports them as files beside it (`./<name>.js`). A command that must start fast
 * then loads its own few files, not its share of the chunks common to all the bin's commands;
 * the module returns an exit code and reports its own errors (it holds copies of our modules).
 */
const APART = { ralph: ['ralph-main', 'status-command', 'circuit-status-command', 'config-command'], monitor: ['monitor-live'] };

/**
 * Modules built apart as one file, their lazy imports inlined: a run of `ralph` needs most of
 * ralph-main's code before its first agent call, and split into chunks it loaded 60 of them
 * (about 35 ms of CPU at each start: a resolve, a read and a compile apiece). Inlined, a lazy
 * import still runs its module's code only when first reached (esbuild wraps each such module in
 * a function called at that point); only the compile of the whole file is paid up front, and
 * Node's built-ins that a module imports are loaded with the file.
 */
const ONE_FILE = new Set(['ralph-main']);

/**
 * Modules of ONE_FILE run from V8's code cache (lib/cli/cached-script.ts): each is built as a
 * classic script (`<name>.script.js`, CommonJS in a function wrapper, its `import.meta.url`
 * given by the wrapper and each `import()` made a `require`), and its place `<name>.js` is
 * taken by the module named here, which loads that script with the cache scripts/code-cache.mjs
 * makes from a run of it. Compiling the ~700 KB of ralph-main and each function a run calls
 * was about a quarter of a one-loop run's CPU.
 */
const CACHED = { 'ralph-main': 'ralph-main-cached' };
const SCRIPT_URL_NAME = '__ralphScriptUrl';

/** esbuild's options for one build of a bin's folder. */
function buildOptions(entryPoints, outdir, plugins, chunkNames, { splitting = true } = {}) {
  return {
    entryPoints,
    outdir,
    bundle: true,
    splitting,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    // Error class names and `--debug` stack frames stay readable.
    keepNames: true,
    plugins,
    chunkNames,
    logLevel: 'warning',
  };
}

/** esbuild's options for a module built as a classic script (CACHED). */
function scriptOptions(entryPoints, outdir) {
  return {
    ...buildOptions(entryPoints, outdir, [packagesPlugin], '[name]', { splitting: false }),
    format: 'cjs',
    define: { 'import.meta.url': SCRIPT_URL_NAME },
    supported: { 'dynamic-import': false },
  };
}

/**
 * The code cache of the script at `file`, from a one-loop run of it (scripts/code-cache.mjs).
 * A build where that run fails still works: ralph compiles the script as it would without a
 * cache, and the build says so.
 */
function makeCodeCache(file) {
  const made = spawnSync(process.execPath, [join(ROOT, 'scripts', 'code-cache.mjs'), file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (made.status !== 0) process.stderr.write(`warning: no code cache for ${file}: ${made.stderr || made.stdout || `exit ${made.status}`}\n`);
}

/** The import of a module built apart stays an import of the file `./<name>.js` beside the bundle. */
function apartPlugin(names) {
  const filter = new RegExp(`^\\./(${names.join('|')})\\.js$`);
  return { name: 'ralph-apart', setup: (b) => b.onResolve({ filter }, (args) => ({ path: args.path, external: true })) };
}

/** Builds one bin's bundle beside its folder, then swaps it in: a bin started meanwhile sees the old bundle or the new one. */
async function bundle(name, entry) {
  const out = join(DIST, `bundle-${name}`);
  const next = `${out}-next`;
  const old = `${out}-old`;
  rmSync(next, { recursive: true, force: true });
  const apart = APART[name] ?? [];
  await build(buildOptions({ [name]: entry }, next, [packagesPlugin, apartPlugin(apart)], 'chunk-[hash]'));
  for (const module of apart) {
    const splitting = !ONE_FILE.has(module);
    const source = join(dirname(entry), `${module}.js`);
    if (CACHED[module] === undefined) {
      await build(buildOptions({ [module]: source }, next, [packagesPlugin], `${module}-[hash]`, { splitting }));
      continue;
    }
    await build(buildOptions({ [module]: join(dirname(entry), `${CACHED[module]}.js`) }, next, [packagesPlugin], `${module}-[hash]`, { splitting }));
    await build(scriptOptions({ [`${module}.script`]: source }, next));
  }
  rmSync(old, { recursive: true, force: true });
  if (existsSync(out)) renameSync(out, old);
  renameSync(next, out);
  rmSync(old, { recursive: true, force: true });
  // Made of the script where it stays, once the folder is swapped in.
  for (const module of apart.filter((name) => CACHED[name] !== undefined)) makeCodeCache(join(out, `${module}.script.js`));
}

await Promise.all(Object.entries(bundleEntries()).map(([name, entry]) => bundle(name, entry)));
// The single shared bundle of earlier builds.
rmSync(join(DIST, 'bundle'), { recursive: true, force: true });
