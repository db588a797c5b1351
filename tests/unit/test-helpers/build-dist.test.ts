// The suite's check that dist/ is older than lib/ (tests/helpers/build-dist.ts): a source newer
// than the oldest bundle is stale; a source whose time alone changed after its .js was emitted
// (a git checkout or stash, which tsc does not emit again) is not, once the bundles are newer.

import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../../helpers/cleanups.js';
import { buildSteps, isStale } from '../../helpers/build-dist.js';

const cleanups = useCleanups();

/** lib/a.ts, lib/sub/b.ts, dist/a.js and two bundles, each at the given time (seconds). */
function tree(times: { a: number; b: number; aJs: number; bundles: [number, number] }) {
  const root = mkdtempSync(join(tmpdir(), 'build-dist-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const file = (path: string, seconds: number) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), '');
    utimesSync(join(root, path), seconds, seconds);
    return join(root, path);
  };
  file('lib/a.ts', times.a);
  file('lib/sub/b.ts', times.b);
  file('dist/a.js', times.aJs);
  const stamps = [file('dist/bundle-x/x.js', times.bundles[0]), file('dist/bundle-y/y.js', times.bundles[1])];
  return { lib: join(root, 'lib'), stamps };
}

describe('isStale', () => {
  it('is false when every bundle is newer than every source, even a source newer than its own .js', () => {
    const { lib, stamps } = tree({ a: 1_000_500, b: 1_000_000, aJs: 1_000_100, bundles: [1_000_600, 1_000_700] });
    expect(isStale(lib, stamps)).toBe(false);
  });

  it('is true when a source, however deep, is newer than the oldest bundle', () => {
    const { lib, stamps } = tree({ a: 1_000_000, b: 1_000_650, aJs: 1_000_100, bundles: [1_000_600, 1_000_700] });
    expect(isStale(lib, stamps)).toBe(true);
  });

  it('is true when a bundle is missing', () => {
    const { lib, stamps } = tree({ a: 1_000_000, b: 1_000_000, aJs: 1_000_100, bundles: [1_000_600, 1_000_700] });
    rmSync(stamps[1]!);
    expect(isStale(lib, stamps)).toBe(true);
    expect(isStale(lib, [])).toBe(true);
  });
});

describe('buildSteps', () => {
  it("are the steps of package.json's build script, the help rendering included", () => {
    const scripts = buildSteps().map(({ argv }) => argv.slice(1).join(' '));
    expect(scripts).toEqual([expect.stringMatching(/node_modules\/typescript\/bin\/tsc -b tsconfig\.json$/), 'scripts/render-help.mjs', 'scripts/bundle.mjs']);
    expect(buildSteps().every(({ argv }) => argv[0] === process.execPath)).toBe(true);
  });

  it('refuse a step they do not know how to run, naming it', () => {
    expect(() => buildSteps('tsc -b && esbuild lib/main.ts')).toThrow(/unknown step .*: esbuild lib\/main\.ts/);
  });
});
