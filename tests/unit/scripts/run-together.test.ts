import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../../scripts/run-together.mjs', import.meta.url));
const PACKAGE_JSON = fileURLToPath(new URL('../../../package.json', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A package whose scripts are a few words of sh each (npm runs them with sh): no Node start of their own. */
function packageWith(scripts: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-run-together-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts }));
  return dir;
}

function runTogether(cwd: string, ...names: string[]) {
  const env = { ...process.env };
  delete env.npm_execpath;
  return spawnSync(process.execPath, [SCRIPT, ...names], { cwd, env, encoding: 'utf8' });
}

describe('scripts/run-together.mjs (npm test’s stages)', () => {
  it('runs every script to its end and exits with the failing one’s code, its output shown whole', () => {
    const dir = packageWith({
      fine: 'echo fine-1; echo fine-2',
      broken: "echo 'broken here' >&2; exit 3",
    });
    const result = runTogether(dir, 'broken', 'fine');
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(/✗ broken \([\d.]+ s, exit 3\)/);
    expect(result.stderr).toMatch(/✓ fine \([\d.]+ s\)/);
    expect(result.stderr).toContain('broken here');
    // Held and printed as one block: the two lines of one script stay together.
    expect(result.stderr).toMatch(/fine-1\nfine-2/);
  });

  it('passes a --live script’s output straight through, and holds the others’ blocks until it has ended', () => {
    const dir = packageWith({
      // quick ends first; slow waits for the file quick writes as it ends.
      quick: 'echo quick-out; : > quick.done',
      slow: 'while [ ! -e quick.done ]; do sleep 0.01; done; echo slow-out',
    });
    const result = runTogether(dir, '--live', 'slow', 'quick');
    expect(result.status).toBe(0);
    // Live: on run-together's own stdout as it comes, not in a held block.
    expect(result.stdout).toContain('slow-out');
    expect(result.stderr).not.toContain('slow-out');
    // Held: quick ended first, yet its block comes after slow's end.
    expect(result.stderr).toMatch(/✓ slow \([\d.]+ s\)\n✓ quick \([\d.]+ s\)\n[^]*quick-out/);
  });

  it('exits 0 when every script passes, and 2 with its usage when none is named', () => {
    const dir = packageWith({ a: 'true', b: 'true' });
    expect(runTogether(dir, 'a', 'b').status).toBe(0);
    const none = runTogether(dir);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('usage: node scripts/run-together.mjs');
    expect(runTogether(dir, '--live').status).toBe(2);
  });
});

/** `npm test` as one run-together call: the scripts started at once, then those started after the build. */
function npmTestStages(): { atOnce: string[]; afterBuild: string[] } {
  const pkg = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { scripts: Record<string, string> };
  const words = pkg.scripts.test!.trim().split(/\s+/);
  expect(words.slice(0, 2), `npm test is one run-together call: ${pkg.scripts.test}`).toEqual(['node', 'scripts/run-together.mjs']);
  const at = words.indexOf('--after');
  const names = (list: string[]) => list.filter((word) => word !== '--live');
  return { atOnce: names(words.slice(2, at)), afterBuild: at === -1 ? [] : [words[at + 1]!, ...names(words.slice(at + 2))] };
}

describe('scripts/run-together.mjs --after', () => {
  it('starts the scripts named after it once the one it names has passed', () => {
    const dir = packageWith({
      first: ': > first.done',
      second: "if [ -e first.done ]; then echo 'first had ended'; else echo 'first had not ended'; fi",
    });
    const result = runTogether(dir, 'first', '--after', 'first', 'second');
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('first had ended');
  });

  it('does not run them when it fails, and exits with its code; a failure of another script stops nothing', () => {
    const dir = packageWith({
      build: 'exit 4',
      check: 'exit 5',
      tests: "echo 'tests ran'",
    });
    const failedBuild = runTogether(dir, 'build', '--after', 'build', '--live', 'tests');
    expect(failedBuild.status).toBe(4);
    expect(failedBuild.stdout + failedBuild.stderr).not.toContain('tests ran');
    expect(failedBuild.stderr).toContain('- tests (not run: build failed)');
    expect(failedBuild.stderr).toMatch(/✗ build \([\d.]+ s, exit 4\)/);

    const failedCheck = runTogether(dir, 'check', 'tests', '--after', 'tests', 'build');
    expect(failedCheck.stderr).toContain('tests ran');
    expect(failedCheck.status).toBe(5);
    const afterUnnamed = runTogether(dir, '--after', 'build', 'tests');
    expect(afterUnnamed.status).toBe(2);
  });
});

describe('npm test’s stages', () => {
  // The build (esbuild's, without a type check: emit-lib.test.ts) takes a second; the format check
  // needs no build, and its failure does not keep the tests from running.
  it('builds beside the format check, then runs the tests beside the other checks', () => {
    expect(npmTestStages()).toEqual({
      atOnce: ['build:test', 'lint:format'],
      afterBuild: ['build:test', 'test:vitest', 'typecheck', 'lint:oxlint', 'test:bats'],
    });
  });
});
