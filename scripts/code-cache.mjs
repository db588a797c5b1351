// Build step (scripts/bundle.mjs): `node scripts/code-cache.mjs <dir>/ralph-main.script.js` makes
// the V8 code cache that script runs from (lib/cli/cached-script.ts), written beside it. V8
// compiles a function only when it first runs, and its cache holds what was compiled so far;
// so the script is loaded as ralph loads it (loadRalphMain: the same V8 flags, the same
// wrapper) and runs what a user's start runs most: `ralph --max-loops 1` on a tiny git project
// with an instant fake agent, in a temporary folder with a HOME of its own (the cold-start
// bench's project, scripts/bench/one-loop-run.mjs). At exit the cache is taken and written.
// Exit 0 only with the cache written.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RECORDED_RUN = join(ROOT, 'tests', 'fixtures', 'claude-cli-2.1.332', 'happy_sj.stdout');
// The loop budget reached: the one loop ran.
const ONE_LOOP_DONE = 3;

const [script, role] = process.argv.slice(2);
if (role === '--run') await runAndCache(script);
else await makeCache(script);

/** Prepares the project and runs this file again in it as the run (`--run`), with its environment. */
async function makeCache(file) {
  const { prepareOneLoopRun } = await import('./bench/one-loop-run.mjs');
  const root = mkdtempSync(join(tmpdir(), 'ralph-code-cache-'));
  try {
    const { template, env } = prepareOneLoopRun(root, RECORDED_RUN);
    // V8 takes the cache only under the flags it was made with: none but ralph's own.
    delete env.NODE_OPTIONS;
    const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), file, '--run'], { cwd: template, env, encoding: 'utf8' });
    if (run.status !== 0) {
      process.stderr.write(`the run that makes the cache exited ${run.status ?? run.signal}: ${run.stderr.trim().split('\n').slice(-3).join(' / ')}\n`);
      process.exitCode = 1;
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Loads the script as ralph does, runs `ralph --max-loops 1` from it, and writes its cache at exit. */
async function runAndCache(file) {
  const { loadRalphMain } = await import(new URL('../dist/cli/ralph/ralph-main-cached.js', import.meta.url).href);
  const { codeCacheOf, codeCachePath } = await import(new URL('../dist/cli/cached-script.js', import.meta.url).href);
  const loaded = loadRalphMain(file);
  process.argv.splice(2, Infinity, '--max-loops', '1');
  await loaded.exports.main();
  const code = process.exitCode;
  process.once('exit', () => {
    if (code !== ONE_LOOP_DONE) return;
    // Beside the script in use: a ralph starting meanwhile reads no cache or the whole of it.
    const temp = `${codeCachePath(file)}.${process.pid}.tmp`;
    writeFileSync(temp, codeCacheOf(loaded));
    renameSync(temp, codeCachePath(file));
    process.exitCode = 0;
  });
  if (code !== ONE_LOOP_DONE) process.stderr.write(`ralph --max-loops 1 exited ${code}, not ${ONE_LOOP_DONE}\n`);
}
