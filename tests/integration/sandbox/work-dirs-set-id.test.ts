// WORK_DIRS are folders beside the project that the agent writes too (mounted into the Docker
// container; on the host, the agent run as their owner): after each call a setuid or setgid bit
// set there is cleared as it is in the project, in the folder a WORK_DIRS path led to at the start. Real files and the host's `find`; a stand-in
// Docker whose every command succeeds (no daemon needed), and ralph's ids given to the host
// sandbox (run as root, it runs the agent as the owner).

import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeProcessRunner, type ProcessExit, type ProcessRunner, type RunResult } from '../../../lib/platform/process.js';
import { createDockerSandbox } from '../../../lib/sandbox/docker-sandbox.js';
import { createHostSandbox } from '../../../lib/sandbox/host-sandbox.js';
import type { Sandbox } from '../../../lib/sandbox/sandbox.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'ralph-work-dirs-set-id-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const project = join(root, 'project');
  const work = join(root, 'shared-lib');
  const home = join(root, 'home');
  for (const dir of [join(project, '.ralph'), join(work, 'bin'), home]) mkdirSync(dir, { recursive: true });
  const plant = (path: string, mode: number) => {
    writeFileSync(path, '#!/bin/sh\n');
    chmodSync(path, mode);
  };
  plant(join(project, 'tool'), 0o4755);
  plant(join(work, 'bin/tool'), 0o4755);
  plant(join(work, 'group-tool'), 0o2750);
  // WORK_DIRS may name the folder through a link (`../lib` leading to where it is kept).
  const workLink = join(root, 'lib');
  symlinkSync(work, workLink);
  return { root, project, work, workLink, home };
}

/** `find` runs for real; every other command (docker's) succeeds at once, answering with a container id. */
function dockerStandIn(): ProcessRunner {
  const exit: ProcessExit = { code: 0, signal: null, timedOut: false, aborted: false, pipesHeldOpen: false };
  return {
    start: (cmd, args, options) =>
      cmd === 'find'
        ? nodeProcessRunner.start(cmd, args, options)
        : { pid: 1234, write: () => undefined, end: () => undefined, kill: () => undefined, done: Promise.resolve(exit) },
    run: async (cmd, args, options): Promise<RunResult> =>
      cmd === 'find' ? nodeProcessRunner.run(cmd, args, options) : { ...exit, stdout: 'c0ffee0123456789\n', stderr: '' },
  };
}

const mode = (path: string) => statSync(path).mode & 0o7777;

describe('the set-id clean-up after a call covers WORK_DIRS', () => {
  it.each([
    [
      'without a sandbox, ralph run as root',
      (s: ReturnType<typeof setup>): Sandbox =>
        createHostSandbox({
          projectDir: s.project,
          workDirs: [s.workLink],
          homeDir: s.home,
          env: process.env,
          processRunner: nodeProcessRunner,
          logger: createMemoryLogger(),
          allowRootAgent: true,
          ids: { ralph: { uid: 0, gid: 0 }, owner: { uid: 0, gid: 0 } },
        }),
    ],
    [
      'in the Docker sandbox',
      (s: ReturnType<typeof setup>): Sandbox => {
        // Run as root, the sandbox runs the agent as the project's owner: an ordinary user's project.
        if (process.getuid?.() === 0) chownSync(s.project, 1000, 1000);
        return createDockerSandbox({
          image: 'ralph-sandbox:test',
          memory: '1g',
          cpus: '1',
          network: 'bridge',
          passEnv: [],
          projectDir: s.project,
          workDirs: [s.workLink],
          ralphDir: join(s.project, '.ralph'),
          homeDir: s.home,
          env: process.env,
          processRunner: dockerStandIn(),
          logger: createMemoryLogger(),
          clock: fakeClock(),
          packageRoot: s.root,
        });
      },
    ],
  ])('%s', async (_, make) => {
    const s = setup();
    const sandbox = make(s);
    cleanups.push(() => sandbox.stop());
    await sandbox.start();
    await sandbox.afterCall();
    expect(mode(join(s.project, 'tool'))).toBe(0o755);
    expect(mode(join(s.work, 'bin/tool'))).toBe(0o755);
    expect(mode(join(s.work, 'group-tool'))).toBe(0o750);
  });
});
