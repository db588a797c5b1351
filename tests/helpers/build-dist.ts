// ensureBuilt(): the tests run the built dist/ (bin/* start its bundles). `npm test` builds
// first; `npx vitest run` alone builds here, from the global setup, before any worker starts, if
// a lib/ source is newer than the bundles: never while tests are starting ralph, whose bundle a
// build swaps out. Two vitest runs in one checkout take turns through a lock directory.
//
// The bundles are the mark: every build rewrites them, while tsc leaves a .js whose source
// changed only in its time (a git checkout, a stash) as it was, so comparing each source with
// its .js would find that source stale after every build and build again.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './run-cli.js';

const LOCK = join(REPO_ROOT, 'node_modules', '.cache', 'ralph-tests-build.lock');
const STALE_LOCK_MS = 5 * 60_000;

export async function ensureBuilt(): Promise<void> {
  mkdirSync(join(LOCK, '..'), { recursive: true });
  for (;;) {
    if (!isStale()) return;
    if (!takeLock()) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    try {
      if (isStale()) build();
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
    return;
  }
}

function takeLock(): boolean {
  try {
    mkdirSync(LOCK);
    return true;
  } catch {
    // A lock left by a killed run is taken over.
    try {
      if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
    } catch {
      // released meanwhile
    }
    return false;
  }
}

/** The bundle each bin/* starts (`import "../dist/bundle-<name>/<name>.js"`): a build writes them all. */
function bundleEntries(): string[] {
  const bin = join(REPO_ROOT, 'bin');
  return readdirSync(bin).flatMap((name) =>
    [...readFileSync(join(bin, name), 'utf8').matchAll(/\.\.\/(dist\/bundle-[\w-]+\/[\w-]+\.js)/g)].map((match) => join(REPO_ROOT, match[1]!)),
  );
}

/**
 * The package's own build (`npm run build`), read from package.json's `build` script so the two
 * cannot drift: each `&&` step as an argv run with this Node. Only `tsc` and `node` steps are
 * known; any other throws, naming it.
 */
export function buildSteps(buildScript = readPackageBuildScript()): { argv: string[]; mayFail: boolean }[] {
  return buildScript.split('&&').map((step) => {
    const [command, ...args] = step.trim().split(/\s+/);
    // tsc exits 1 on a type error elsewhere but emits the JavaScript anyway (noEmitOnError is off).
    if (command === 'tsc') return { argv: [process.execPath, join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), ...args], mayFail: true };
    if (command === 'node') return { argv: [process.execPath, ...args], mayFail: false };
    throw new Error(`tests/helpers/build-dist.ts: unknown step in package.json's build script: ${step.trim()}`);
  });
}

function readPackageBuildScript(): string {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { build: string } };
  return pkg.scripts.build;
}

function build(): void {
  for (const { argv, mayFail } of buildSteps()) {
    try {
      execFileSync(argv[0]!, argv.slice(1), { cwd: REPO_ROOT, stdio: 'ignore' });
    } catch (error) {
      if (!mayFail) throw error;
    }
  }
}

/** Whether a lib/ source is newer than the oldest bundle (or a bundle is missing). */
export function isStale(libDir = join(REPO_ROOT, 'lib'), stamps = bundleEntries()): boolean {
  if (stamps.length === 0) return true;
  let built: number;
  try {
    built = Math.min(...stamps.map((stamp) => statSync(stamp).mtimeMs));
  } catch {
    return true;
  }
  return newestSource(libDir) > built;
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}
