// What `npm publish` would ship: the built code, templates and shims, and no source maps that
// point at TypeScript sources the package does not contain.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/run-cli.js';

describe('npm package contents', () => {
  it('ships dist/, bin/, templates/ and the web view page, and no .map file, build state or sourceMappingURL to an unshipped file', () => {
    // --ignore-scripts: list what the current build would ship, without rebuilding it.
    const listing = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, encoding: 'utf8' });
    const files = new Set((JSON.parse(listing) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path));
    for (const required of [
      'bin/ralph',
      'dist/cli/ralph/ralph.js',
      'dist/cli/require-node.js',
      'dist/cli/ralph-help.txt',
      'dist/bundle-ralph/ralph.js',
      'dist/bundle-monitor/monitor.js',
      'templates/ralphrc',
      'templates/gitignore',
      'Dockerfile',
      '.dockerignore',
      'web/index.html',
      'web/app.js',
      'web/app.css',
      'web/icon.svg',
    ]) {
      expect(files.has(required), required).toBe(true);
    }
    expect([...files].filter((file) => file.endsWith('.map'))).toEqual([]);
    // tsc's incremental state, kept beside its output.
    expect([...files].filter((file) => file.endsWith('.tsbuildinfo'))).toEqual([]);
    for (const file of [...files].filter((f) => f.endsWith('.js'))) {
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(REPO_ROOT, file), 'utf8'))?.[1];
      if (url) expect(files.has(join(file, '..', url)), `${file} -> ${url}`).toBe(true);
    }
  });

  it("installs esbuild in the range vite's peer dependency asks for (npm install prints no ERESOLVE)", () => {
    // npm ls exits 1 and lists the mismatch under "problems" when a peer range is not met.
    const run = spawnSync('npm', ['ls', 'esbuild', '--json', '--logs-max=0'], { cwd: REPO_ROOT, encoding: 'utf8' });
    const tree = JSON.parse(run.stdout) as { problems?: string[] };
    expect(tree.problems ?? []).toEqual([]);
    expect(run.status).toBe(0);
  });
});
