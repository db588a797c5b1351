// The fake npm of the fleet's tests keeps the tarballs the real npm packed for the whole run, so
// the fleet's test files pack ralph once between them; two files that pack the same files at
// once both get the tarball.

import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { NPM_PACK_CACHE_ENV } from '../../helpers/fake-cli-paths.js';
import { npmPackCache } from '../../helpers/fleet-repo.js';

const FAKE_NPM = fileURLToPath(new URL('../../fixtures/fake-npm-view/npm', import.meta.url));

// A stand-in for the real npm: counts its calls, waits until both packs have started (so they
// overlap), then writes its tarball and prints the tarball's name as npm pack does.
const REAL_NPM_STUB = `#!/bin/sh
echo "$$" >> "$STUB_DIR/calls"
touch "$STUB_DIR/started/$$"
while [ "$(ls "$STUB_DIR/started" | wc -l)" -lt 2 ]; do sleep 0.01; done
printf 'tarball of %s' "$6" > "$5/pkg-1.0.0.tgz"
echo pkg-1.0.0.tgz
`;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-npm-pack-test-'));
  dirs.push(dir);
  return dir;
}

function pack(env: NodeJS.ProcessEnv, out: string, folder: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(FAKE_NPM, ['pack', '--ignore-scripts', '--silent', '--pack-destination', out, folder], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the fake npm’s tarballs', () => {
  it('are kept in one folder for the whole run, which every test file is given', () => {
    const ofTheRun = process.env[NPM_PACK_CACHE_ENV];
    expect(ofTheRun, 'the global setup names the run’s folder').toBeDefined();
    expect(npmPackCache()).toBe(ofTheRun);
  });

  it('two packs of the same files at once both give the tarball, and one of them is kept', async () => {
    const root = scratch();
    const stubDir = join(root, 'stub');
    mkdirSync(join(stubDir, 'started'), { recursive: true });
    const realNpm = join(stubDir, 'npm');
    writeFileSync(realNpm, REAL_NPM_STUB);
    chmodSync(realNpm, 0o755);
    const folder = join(root, 'package');
    mkdirSync(folder);
    writeFileSync(join(folder, 'package.json'), '{"name":"pkg","version":"1.0.0"}\n');
    const cache = join(root, 'cache');
    mkdirSync(cache);
    const outs = [join(root, 'out-1'), join(root, 'out-2')];
    for (const out of outs) mkdirSync(out);
    const env = { ...process.env, REAL_NPM: realNpm, FAKE_NPM_PACK_CACHE: cache, STUB_DIR: stubDir };

    const results = await Promise.all(outs.map((out) => pack(env, out, folder)));

    for (const [i, result] of results.entries()) {
      expect({ code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({ code: 0, stderr: '', stdout: 'pkg-1.0.0.tgz\n' });
      expect(readFileSync(join(outs[i]!, 'pkg-1.0.0.tgz'), 'utf8')).toBe(`tarball of ${folder}`);
    }
    // Both packed (they overlapped); one tarball is kept and no staging folder is left.
    expect(readFileSync(join(stubDir, 'calls'), 'utf8').trim().split('\n')).toHaveLength(2);
    expect(readdirSync(cache)).toHaveLength(1);

    // A later pack of the same files gives the kept tarball without the real npm.
    const later = join(root, 'out-3');
    mkdirSync(later);
    expect((await pack(env, later, folder)).code).toBe(0);
    expect(readFileSync(join(later, 'pkg-1.0.0.tgz'), 'utf8')).toBe(`tarball of ${folder}`);
    expect(readFileSync(join(stubDir, 'calls'), 'utf8').trim().split('\n')).toHaveLength(2);
  });
});
