// The bin/ shims run the esbuild bundle of their entry (scripts/bundle.mjs, part of the build):
// the read-only commands load a few chunks from their own dist/bundle-<name>/ with zod inlined, instead of our
// modules and zod's ~150 files one by one (start-up budgets, docs/performance.md); ralph's quick
// answers load only their own files, not the chunks its other commands share. Every module a
// process resolves, and each Node.js built-in it loads, is recorded through a `node --import` hook.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withFakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { startModuleTrace, type ModuleTrace } from '../helpers/module-trace.js';
import { RALPH_MAIN_NAME } from '../../lib/cli/ralph/ralph-main-cached.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { readablePackageCopy } from '../helpers/sandbox-tools.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

let trace: ModuleTrace;
let project: TmpProject | undefined;
beforeEach(() => {
  trace = startModuleTrace();
  project = tmpProject(ralphProjectTree());
});
afterEach(() => {
  project?.cleanup();
  project = undefined;
  trace.cleanup();
});

const fileModules = () => trace.modules().filter((url) => url.startsWith('file:'));
/** What the process loaded from dist/, as paths below it. */
const distModules = () => fileModules().flatMap((url) => (url.includes('/dist/') ? [url.replace(/.*\/dist\//, '')] : []));
const builtins = () => trace.modules().filter((line) => line.startsWith('builtin:'));

describe('the bins run the bundle', () => {
  it.each([
    ['ralph', ['--circuit-status'], 'bundle-ralph'],
    ['ralph-monitor', ['--once'], 'bundle-monitor'],
  ] as const)('%s %j loads our code from its own dist/%s/ and no module of node_modules/', async (command, args, folder) => {
    const run = await runCli(command, [...args], { cwd: project!.dir, env: trace.env });
    expect(run.code, run.stderr).toBe(0);
    const modules = fileModules();
    expect(modules.some((url) => url.includes(`/dist/${folder}/`))).toBe(true);
    expect(modules.filter((url) => url.includes('/node_modules/'))).toEqual([]);
    // Only the shim's Node-version check comes from tsc's per-file output; no chunk of another
    // command's bundle (chunks shared between bins would multiply the files each one loads).
    expect(modules.filter((url) => url.includes('/dist/') && !url.includes(`/dist/${folder}/`)).map((url) => url.replace(/.*\/dist\//, ''))).toEqual([
      'cli/require-node.js',
    ]);
  });
});

describe("ralph's quick answers load their own files only", () => {
  it.each([['--version'], ['--help']])('ralph %s loads the one file of ralph.js', async (flag) => {
    const run = await runCli('ralph', [flag], { cwd: project!.dir, env: trace.env });
    expect(run.code, run.stderr).toBe(0);
    expect(distModules()).toEqual(['cli/require-node.js', 'bundle-ralph/ralph.js']);
  });

  it.each([
    ['--status', 'status-command'],
    ['--circuit-status', 'circuit-status-command'],
    ['--config', 'config-command'],
  ])('ralph %s loads its own files (%s), no chunk of the other commands, and not node:crypto', async (flag, own) => {
    const run = await runCli('ralph', [flag], { cwd: project!.dir, env: trace.env });
    expect(run.code, run.stderr).toBe(0);
    const loaded = distModules().filter((path) => path !== 'cli/require-node.js' && path !== 'bundle-ralph/ralph.js');
    expect(loaded.length).toBeGreaterThan(0);
    expect(loaded.filter((path) => !new RegExp(`^bundle-ralph/${own}(-\\w+)?\\.js$`).test(path))).toEqual([]);
    expect(loaded.length).toBeLessThanOrEqual(3);
    expect(builtins()).not.toContain('builtin:crypto');
  });

  it('ralph-monitor --once loads the one file of monitor.js (its live views are built apart)', async () => {
    const run = await runCli('ralph-monitor', ['--once'], { cwd: project!.dir, env: trace.env });
    expect(run.code, run.stderr).toBe(0);
    expect([...new Set(distModules())]).toEqual(['cli/require-node.js', 'bundle-monitor/monitor.js']);
  });

  it('ralph-monitor --once loads no zod: it reads the state files field by field', async () => {
    const run = await runCli('ralph-monitor', ['--once'], { cwd: project!.dir, env: trace.env });
    expect(run.code, run.stderr).toBe(0);
    const loaded = [...new Set(fileModules().filter((url) => url.includes('/dist/bundle-monitor/')))];
    expect(loaded.length).toBeGreaterThan(0);
    // Every zod schema class is made by zod's `$constructor("$Zod…")`, whose name survives minifying.
    expect(loaded.filter((url) => readFileSync(fileURLToPath(url), 'utf8').includes('"$ZodType"')).map((url) => url.replace(/.*\/dist\//, ''))).toEqual([]);
    // The check has something to find: the web view, loaded only for --web, still reads zod's schemas.
    const bundle = join(REPO_ROOT, 'dist', 'bundle-monitor');
    expect(readdirSync(bundle).some((name) => readFileSync(join(bundle, name), 'utf8').includes('"$ZodType"'))).toBe(true);
  });

  it('ralph-monitor --once does not load node:crypto', async () => {
    const run = await runCli('ralph-monitor', ['--once'], { cwd: project!.dir, env: trace.env });
    expect(run.code, run.stderr).toBe(0);
    expect(builtins().length).toBeGreaterThan(0);
    expect(builtins()).not.toContain('builtin:crypto');
  });
});

/** The environment that records, in `file`, how each classic script ralph runs was compiled (tests/fixtures/script-cache-trace). */
function scriptCacheTrace(env: NodeJS.ProcessEnv, file: string): NodeJS.ProcessEnv {
  const register = pathToFileURL(join(REPO_ROOT, 'tests', 'fixtures', 'script-cache-trace', 'register.mjs')).href;
  return { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import=${register}`.trim(), RALPH_SCRIPT_CACHE_TRACE: file };
}
/** How each classic script ralph's process ran was compiled (not the fake agent's, which inherits the trace). */
const compiled = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.endsWith('/bin/ralph'))
    .map((line) => line.split(' ')[0]);

describe('a run of ralph loads the rest of ralph as one file', () => {
  it('names the script by its place in the package in a --debug stack, wherever the package is, its code from the cache the build made', async () => {
    const copy = readablePackageCopy();
    try {
      for (const packageRoot of [REPO_ROOT, copy.root]) {
        const scripts = project!.path(`scripts-compiled-${basename(packageRoot)}.txt`);
        const run = await runCli('ralph', ['--max-loops', 'abc', '--debug'], { cwd: project!.dir, env: scriptCacheTrace({}, scripts), packageRoot });
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(`at checkFlagValue (${RALPH_MAIN_NAME}:`);
        expect(run.stderr).not.toContain('bundle-ralph-next');
        expect(compiled(scripts)).toEqual(['cache']);
        // A copy installed elsewhere names no file of the folder the build ran in.
        if (packageRoot === copy.root) expect(run.stderr).not.toContain(REPO_ROOT);
      }
    } finally {
      copy.cleanup();
    }
  });

  it("the build's run that makes the code cache leaves nothing in the user's state, configuration, cache or data folders", () => {
    const xdg = tmpProject({});
    const copy = tmpProject({});
    try {
      const script = copy.path('ralph-main.script.js');
      copyFileSync(join(REPO_ROOT, 'dist', 'bundle-ralph', 'ralph-main.script.js'), script);
      const folders = ['XDG_STATE_HOME', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME'].map((name) => [name, xdg.path(name)] as const);
      for (const [, dir] of folders) mkdirSync(dir);
      const made = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'code-cache.mjs'), script], {
        env: { ...process.env, ...Object.fromEntries(folders) },
        encoding: 'utf8',
      });
      expect(made.status, made.stderr).toBe(0);
      expect(existsSync(`${script}.v8cache`)).toBe(true);
      // The one-loop run had a HOME of its own: its ledger went with it, not into the user's state folder.
      expect(folders.flatMap(([, dir]) => readdirSync(dir, { recursive: true }).map((name) => join(basename(dir), String(name))))).toEqual([]);
    } finally {
      xdg.cleanup();
      copy.cleanup();
    }
  });

  it("ralph --max-loops 1 loads ralph-main.js and no chunk (its lazy imports are inlined), its code compiled from the build's code cache", async () => {
    const run = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git: true });
    const fake = withFakeClaude({ calls: [{ writeFiles: { 'src/a.txt': 'a\n' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } }] });
    const scripts = run.path('scripts-compiled.txt');
    const env = scriptCacheTrace({ ...fake.env, ...trace.env }, scripts);
    try {
      const result = await runCli('ralph', ['--max-loops', '1'], { cwd: run.dir, env });
      // The loop ran to its agent call and on to its budget: the code behind the lazy imports was reached.
      expect(fake.runs().length, result.stderr).toBe(1);
      expect(readFileSync(run.path('.ralph/logs/ralph.log'), 'utf8')).toContain('=== Completed Loop #1 ===');
      expect([...new Set(distModules())]).toEqual(['cli/require-node.js', 'bundle-ralph/ralph.js', 'bundle-ralph/ralph-main.js']);
      // Nor any package (the fake agent, a script of the tests' cache, loads its own): the script
      // requires jq-wasm or sax only where a command uses them.
      expect(trace.modules().filter((line) => /^require:.*\/node_modules\/(?!\.cache\/)/.test(line))).toEqual([]);
      // ralph-main.js runs the rest of ralph as one classic script, from the V8 code cache the
      // build made of it: no parse of its ~700 KB, no compile of each function as it is first called.
      expect(compiled(scripts)).toEqual(['cache']);
      // What a module inlined there imports of Node's loads with the file: the web view's HTTP server waits for --web.
      expect(builtins()).toContain('builtin:child_process');
      expect(builtins()).not.toContain('builtin:http');
    } finally {
      fake.cleanup();
      run.cleanup();
    }
  });
});
