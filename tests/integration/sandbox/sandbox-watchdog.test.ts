// The Docker sandbox's watchdog (lib/sandbox/sandbox-watchdog.ts, lib/cli/sandbox-watchdog/):
// a ralph killed with -9 leaves no container and no private home behind — the watchdog it
// started removes them as soon as ralph is gone. A stand-in for ralph (the built modules, as a
// run uses them) and a stand-in for docker (which records what it was asked) keep this off any
// daemon; tests/system/sandbox/docker.test.ts does it with the real one.

import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

/** Resolves once `ready()` holds (checked every 50 ms; the test's timeout bounds the wait). */
async function waitFor(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('the Docker sandbox watchdog', () => {
  it('removes the container and the private home of a ralph killed with -9', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ralph-watchdog-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const asked = join(root, 'docker-asked');
    const docker = join(root, 'docker');
    writeFileSync(docker, `#!/bin/sh\necho "$*" >> '${asked}'\n`, { mode: 0o755 });
    chmodSync(docker, 0o755);
    const home = join(root, 'ralph-sandbox-1-x');
    mkdirSync(join(home, 'home/.claude'), { recursive: true });
    writeFileSync(join(home, 'home/.claude/.credentials.json'), '{"token":"copied"}');
    const module = (path: string) => pathToFileURL(join(REPO_ROOT, 'dist', path)).href;
    const standIn = [
      `const { watchOverContainer } = await import(${JSON.stringify(module('sandbox/sandbox-watchdog.js'))});`,
      `const { nodeProcessRunner } = await import(${JSON.stringify(module('platform/process.js'))});`,
      `watchOverContainer({ runner: nodeProcessRunner, docker: ${JSON.stringify(docker)}, env: process.env, container: 'ralph-sandbox-1-2-abcd', folder: ${JSON.stringify(home)} });`,
      "process.stdout.write('watching\\n');",
      'setInterval(() => undefined, 1000);',
    ].join('\n');
    const ralph = spawn(process.execPath, ['--input-type=module', '-e', standIn], { stdio: ['ignore', 'pipe', 'inherit'] });
    cleanups.push(() => {
      if (ralph.exitCode === null && ralph.signalCode === null) ralph.kill('SIGKILL');
    });
    await new Promise<void>((resolve) => ralph.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('watching') && resolve()));
    // Alive: nothing is removed while ralph runs.
    expect(existsSync(asked)).toBe(false);
    expect(existsSync(home)).toBe(true);
    ralph.kill('SIGKILL');
    await waitFor(() => existsSync(asked) && !existsSync(home));
    expect(readFileSync(asked, 'utf8')).toBe('rm -f ralph-sandbox-1-2-abcd\n');
  }, 30_000);
});
