// The fake `claude` bundled into one script for `npm test` (made by its global setup), which the
// tests' sandboxes link to instead of the fixture's entry (FAKE_CLAUDE_BIN in fake-claude.ts); the
// other fakes (gh, the fleet's gh, bd, codex, gemini, opencode) likewise (fake-cli-paths.ts).
//
// The suite starts the fake about a thousand times, and each start resolved, read and compiled
// its thirty-odd modules one by one: bundled, a call costs about a quarter less CPU (53 ms instead
// of 70 on 2 cores). The bundle is CommonJS: Node loads one script without setting up its ES
// module loader, a sixth less CPU again (40 ms instead of 48); for the fake gh, started some
// hundreds of times, 29 ms instead of 35. Run with V8's code cache of a call made when the bundle
// is (below), a loop's call of the fake claude costs some 7 ms less again. The fixture stays plain ESM with no build step (README.md beside it); the
// bundle is made from it when a `vitest run` starts, so the run tests the fixture's current code
// (a watch-mode rerun keeps the bundle its start made). `import.meta.url` is pinned to the
// fixture's entry, so paths the fake finds beside itself (the recordings it replays) resolve as
// they do unbundled.
//
// A fixture with an `<entry>.sh` (the fake claude's) gets that as the bundle's entry, and the
// bundled program as `<entry>.cjs` beside it: sh answers `claude --version`, which ralph asks at
// the start of every run, in about 6 ms of CPU instead of a Node start's 100.
//
// The bundle is named by a hash of what it is made from (the fixture's files and folder, and those
// of the fixtures it imports from, this file, esbuild's version) and kept in
// node_modules/.cache/ralph/fake-claude/ (fake-<fixture>-<entry>/ for the others), so a run whose fixture did not change reuses it; older
// ones are removed. Two runs at once never write the same
// file half-way: each builds in a staging folder named for its pid and renames it into place.
// The system suite does not use it: its sandboxes bind the fixture's folder, so there the fake
// runs from its source.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, version as esbuildVersion } from 'esbuild';
import { isProcessAlive } from '../../lib/state/process-alive.js';
import type { FakeCli, FakeCliWarmUp } from './fake-cli-paths.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURE = resolve(HERE, '..', 'fixtures', 'fake-claude');
const CACHE_ROOT = resolve(HERE, '..', '..', 'node_modules', '.cache', 'ralph');
const CACHE = join(CACHE_ROOT, 'fake-claude');
const STAGING = /^\.staging-(\d+)-/;

/** Where the bundle of a fake besides claude is kept. */
export function fakeCliCache(cli: FakeCli): string {
  return join(CACHE_ROOT, `${basename(cli.dir)}-${cli.entry}`);
}

/** The path of an executable bundle of the fake claude's current code, made if it is not there yet. */
export async function bundleFakeClaude(fixture = FIXTURE, cache = CACHE): Promise<string> {
  return bundleFakeCli({ dir: fixture, entry: 'claude', module: 'main.mjs', warmUp: CLAUDE_WARM_UP }, cache);
}

/** A loop's call as ralph makes it: a prompt, stream-json, a reply that changes files and ticks the plan. */
const CLAUDE_WARM_UP: FakeCliWarmUp = {
  args: ['-p', 'Work on the plan.', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Write,Read,Edit'],
  env: (dir) => ({
    FAKE_CLAUDE_STATE_DIR: join(dir, 'state'),
    FAKE_CLAUDE_SCENARIO_JSON: JSON.stringify({
      calls: [{ resultText: 'Done.', tickFixPlan: 'all', writeFiles: { 'work.txt': 'work\n' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } }],
    }),
    ANTHROPIC_API_KEY: 'sk-ant-warm-up',
    HOME: dir,
  }),
};

/** The path of an executable bundle of the fixture's current code, made if it is not there yet. */
export async function bundleFakeCli(cli: FakeCli, cache: string): Promise<string> {
  const fixture = cli.dir;
  const name = bundleKey(cli);
  const dir = join(cache, name);
  const entry = join(dir, cli.entry);
  if (existsSync(entry)) return entry;
  mkdirSync(cache, { recursive: true });
  removeOutdated(cache, name);
  const staging = mkdtempSync(join(cache, `.staging-${process.pid}-`));
  try {
    const result = await build({
      entryPoints: [join(fixture, cli.module)],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      define: { 'import.meta.url': JSON.stringify(pathToFileURL(join(fixture, cli.module)).href) },
      // A function compiled from a code cache has no dynamic-import callback in Node 20: each import() a require.
      supported: { 'dynamic-import': false },
    });
    const code = result.outputFiles[0]!.text;
    // An import() of a computed path is left as it is, and would look for a module beside the bundle.
    const computed = code.match(/\bimport\((?!"node:)[^)]*\)/g);
    if (computed) throw new Error(`the fake ${cli.entry} imports a computed path (${computed.join(', ')}): import each module by its literal path`);
    writeFileSync(join(staging, 'package.json'), '{ "type": "commonjs" }\n');
    // The fixture's entry, taking main() from the bundle's own exports instead of its module.
    const start = readFileSync(join(fixture, cli.entry), 'utf8');
    const selfImport = start.replace(`import('./${cli.module}')`, 'Promise.resolve(module.exports)');
    if (selfImport === start) throw new Error(`${join(fixture, cli.entry)} no longer imports ./${cli.module}: update ${fileURLToPath(import.meta.url)}`);
    const [shebang, ...rest] = selfImport.split('\n');
    const made = `// Bundled from ${fixture} by tests/helpers/fake-claude-bundle.ts: edit the fixture, not this.`;
    const shEntry = join(fixture, `${cli.entry}.sh`);
    const program = existsSync(shEntry) ? `${cli.entry}.cjs` : cli.entry;
    const script = `${cli.entry}.script.js`;
    writeFileSync(join(staging, script), `${SCRIPT_START}${made}\n${code}\n${rest.join('\n')}${SCRIPT_END}`);
    writeFileSync(join(staging, program), loaderOf(shebang!, made, script, join(dir, script)));
    chmodSync(join(staging, program), 0o755);
    if (program !== cli.entry) writeShEntry(shEntry, join(staging, cli.entry), join(dir, program));
    if (cli.warmUp) makeCodeCache(join(staging, program), cli.warmUp);
    // Some tests run the fake as another user.
    chmodSync(staging, 0o755);
    try {
      renameSync(staging, dir);
    } catch (error) {
      // Another run put the same bundle in place first.
      if (!existsSync(entry)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return entry;
}

// The bundle is a classic script wrapped as Node wraps a CommonJS module, run by a small program
// beside it with V8's code cache of it when there is one (`<script>.v8cache`). Node 20 keeps no
// compiled code between starts: each start of the fake parsed the whole bundle again and compiled
// each function it ran. The cache is made when the bundle is, by one call of the fake (the
// fixture's warmUp: V8's cache holds the functions that ran), and is written once, with the
// script, into the bundle's folder, named by a hash of what the bundle is made from and renamed
// into place whole: it is never changed in place. A cache V8 refuses (another Node, other V8
// flags) costs only the compile it would have saved.
const SCRIPT_START = '(function (exports, require, module, __filename, __dirname) {';
const SCRIPT_END = '\n})';
const MAKE_CODE_CACHE_ENV = 'FAKE_CLI_MAKE_CODE_CACHE';

/** The program that runs `script` (beside it; `name` is what stack traces call it). */
function loaderOf(shebang: string, made: string, script: string, name: string): string {
  return [
    shebang,
    made,
    `// It runs ${script} beside it, with V8's code cache of it when it has one.`,
    "'use strict';",
    "const { readFileSync, writeFileSync } = require('node:fs');",
    "const { Script } = require('node:vm');",
    `const file = require('node:path').join(__dirname, ${JSON.stringify(script)});`,
    'let cachedData;',
    'try {',
    '  cachedData = readFileSync(`${file}.v8cache`);',
    '} catch {',
    '  // none made',
    '}',
    `const script = new Script(readFileSync(file, 'utf8'), { filename: ${JSON.stringify(name)}, cachedData });`,
    `if (process.env.${MAKE_CODE_CACHE_ENV} === '1') process.once('exit', () => writeFileSync(\`\${file}.v8cache\`, script.createCachedData()));`,
    'script.runInThisContext()(module.exports, require, module, __filename, __dirname);',
    '',
  ].join('\n');
}

/** V8's code cache of the bundle run by `program`, made by the fixture's warm-up call in a folder of its own. */
function makeCodeCache(program: string, warmUp: FakeCliWarmUp): void {
  const work = mkdtempSync(join(tmpdir(), 'fake-cli-warm-up-'));
  try {
    const { NODE_OPTIONS: _options, ...env } = process.env;
    spawnSync(process.execPath, [program, ...warmUp.args], {
      cwd: work,
      env: { ...env, ...warmUp.env(work), [MAKE_CODE_CACHE_ENV]: '1' },
      input: '',
      stdio: 'pipe',
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * A fixture's `<entry>.sh` made the bundle's entry: sh answers the calls it can without a Node
 * start, and runs the bundled program for the rest (its line `node_entry=@NODE_ENTRY@` gets the
 * program's final path). A line `# include: <path>` is replaced by that file (its path from the
 * entry's folder, inside the fixture or one it imports from, whose files make the bundle's key).
 */
function writeShEntry(shEntry: string, entry: string, program: string): void {
  const text = readFileSync(shEntry, 'utf8').replace(/^# include: (\S+)$/gm, (_line, path: string) =>
    readFileSync(resolve(dirname(shEntry), path), 'utf8').trimEnd(),
  );
  const line = 'node_entry=@NODE_ENTRY@';
  if (!text.includes(line)) throw new Error(`${shEntry} has no line ${line} to run the bundled program with`);
  const quoted = `'${program.replaceAll("'", "'\\''")}'`;
  writeFileSync(
    entry,
    text.replace(line, () => `node_entry=${quoted}`),
  );
  chmodSync(entry, 0o755);
}

function bundleKey(cli: FakeCli): string {
  const hash = createHash('sha256')
    .update(`${cli.dir}\0${cli.entry}\0${cli.module}\0${esbuildVersion}\0`)
    .update(readFileSync(fileURLToPath(import.meta.url)));
  for (const folder of [cli.dir, ...(cli.imports ?? [])]) {
    hash.update(`\0${folder}\0`);
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isFile()) hash.update(`\0${name}\0`).update(readFileSync(path));
    }
  }
  return hash.digest('hex').slice(0, 16);
}

/** Bundles of other versions, and staging folders of runs that have ended. */
function removeOutdated(cache: string, current: string): void {
  for (const name of readdirSync(cache)) {
    const staging = STAGING.exec(name);
    const outdated = staging ? !isProcessAlive(Number(staging[1])) : name !== current;
    if (outdated) rmSync(join(cache, name), { recursive: true, force: true });
  }
}
