// ensureBuilt(): the monitor tests run the built dist/ (the tmux panes start real processes).
// `npm test` builds first; when run alone, build here (tsc, then the bundles the bin/ shims
// run) if any lib/ source is newer than its output or than the bundle. Test files run in
// parallel, so one builds while the others wait on a lock directory (a half-written dist/ must
// never be started). tsc still emits when someone else's unfinished file has type errors.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const LOCK = join(REPO_ROOT, 'node_modules', '.cache', 'ralph-monitor-tests-build.lock');
const STALE_LOCK_MS = 5 * 60_000;

export async function ensureBuilt(): Promise<void> {
  mkdirSync(join(LOCK, '..'), { recursive: true });
  for (;;) {
    if (!isStale(join(REPO_ROOT, 'lib'))) return;
    if (!takeLock()) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    try {
      if (isStale(join(REPO_ROOT, 'lib'))) build();
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

const BUNDLE_STAMP = join(REPO_ROOT, 'dist', 'bundle-monitor', 'monitor.js');

function build(): void {
  try {
    execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: REPO_ROOT,
      stdio: 'ignore',
    });
  } catch {
    // Type errors elsewhere: the JavaScript is emitted anyway.
  }
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'bundle.mjs')], { cwd: REPO_ROOT, stdio: 'ignore' });
}

function isStale(dir: string): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (isStale(path)) return true;
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const out = join(REPO_ROOT, 'dist', relative(join(REPO_ROOT, 'lib'), path)).replace(/\.ts$/, '.js');
      try {
        const source = statSync(path).mtimeMs;
        if (statSync(out).mtimeMs < source || statSync(BUNDLE_STAMP).mtimeMs < source) return true;
      } catch {
        return true;
      }
    }
  }
  return false;
}
