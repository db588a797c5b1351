// The bubblewrap sandbox loads a seccomp filter that refuses setuid and setgid bits on every call
// (with the network off too), so the project is swept for such bits once, after the first call
// (the bits it had before), and never again. Real files, a stand-in bwrap that is never run
// (the runner records what would start); the filter itself is proven against the kernel in
// tests/system/bwrap-set-id.test.ts.

import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProcessExit, ProcessRunner, RunResult } from '../../../lib/platform/process.js';
import { createBwrapSandbox } from '../../../lib/sandbox/bwrap-sandbox.js';
import { sandboxFilterBytes } from '../../../lib/sandbox/seccomp-filter.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

function setup(network: 'none' | 'bridge') {
  const root = mkdtempSync(join(tmpdir(), 'ralph-bwrap-set-id-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const project = join(root, 'project');
  const home = join(root, 'home');
  const bin = join(root, 'bin');
  for (const dir of [project, join(project, '.ralph'), home, bin]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'bwrap'), 0o755);
  // Run as root, the sandbox runs the agent as the project's owner: an ordinary user's project.
  if (process.getuid?.() === 0) chownSync(project, 1000, 1000);
  const started: string[] = [];
  const exit: ProcessExit = { code: 0, signal: null, timedOut: false, aborted: false, pipesHeldOpen: false };
  const runner: ProcessRunner = {
    start(cmd) {
      started.push(cmd);
      return { pid: 1234, write: () => undefined, end: () => undefined, kill: () => undefined, done: Promise.resolve(exit) };
    },
    run: async (): Promise<RunResult> => ({ ...exit, stdout: '', stderr: '' }),
  };
  const sandbox = createBwrapSandbox({
    projectDir: project,
    homeDir: home,
    env: { PATH: bin, HOME: home },
    binds: [],
    network,
    passEnv: [],
    processRunner: runner,
    logger: createMemoryLogger(),
  });
  cleanups.push(() => sandbox.stop());
  return { sandbox, started };
}

describe.runIf(process.arch === 'x64' || process.arch === 'arm64')('the bubblewrap sandbox and setuid bits', () => {
  it.each([
    ['off', 'none', false],
    ['shared', 'bridge', true],
  ] as const)('with the network %s: each call runs under the set-id filter, and only the first is followed by a sweep', async (_, network, unixSockets) => {
    const { sandbox, started } = setup(network);
    await sandbox.start();
    for (let call = 1; call <= 3; call++) {
      const wrapped = sandbox.wrap({ cmd: 'true', args: [], stdin: '' }, {});
      const at = wrapped.args.indexOf('--seccomp');
      expect(wrapped.args.slice(at, at + 2)).toEqual(['--seccomp', '3']);
      expect(wrapped.inheritFiles).toHaveLength(1);
      expect(new Uint8Array(readFileSync(wrapped.inheritFiles![0]!))).toEqual(sandboxFilterBytes({ unixSockets, setIdBits: true }));
      await sandbox.afterCall();
    }
    expect(started.filter((cmd) => cmd === 'find')).toHaveLength(1);
  });

  it('sweeps again after the first call of a sandbox started anew', async () => {
    const { sandbox, started } = setup('none');
    await sandbox.start();
    await sandbox.afterCall();
    await sandbox.stop();
    await sandbox.start();
    await sandbox.afterCall();
    await sandbox.afterCall();
    expect(started.filter((cmd) => cmd === 'find')).toHaveLength(2);
  });
});
