// The gate's command runs where the agent runs: the argv the verification gate starts under each
// sandbox provider, built by the real sandboxes (started against a recording process runner and
// stand-in `bwrap` / `docker` executables, so no sandbox is needed here). On the host the command
// runs as given; under bwrap it is wrapped like the agent (user namespace, no capability, the
// project the only writable mount); under Docker it is a `docker exec` in the run's container,
// with the report file at its path inside the container and no variable value in the argv.

import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProcessExit, ProcessRunner, RunResult } from '../../../lib/platform/process.js';
import { createBwrapSandbox } from '../../../lib/sandbox/bwrap-sandbox.js';
import { createDockerSandbox } from '../../../lib/sandbox/docker-sandbox.js';
import { hostExecution, type Sandbox } from '../../../lib/sandbox/sandbox.js';
import { runVerificationGate } from '../../../lib/verify/run-gate.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { useCleanups } from '../../helpers/cleanups.js';

const CONTAINER = 'c0ffee0123456789';
const cleanups = useCleanups();

interface Started {
  cmd: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
}

/** Answers every `run` (the sandboxes' checks) with success, records every `start` (the gate's commands). */
function recordingRunner(): { runner: ProcessRunner; started: Started[] } {
  const started: Started[] = [];
  const exit: ProcessExit = { code: 0, signal: null, timedOut: false, aborted: false, pipesHeldOpen: false };
  const runner: ProcessRunner = {
    start(cmd, args, options = {}) {
      started.push({ cmd, args, env: options.env ?? {} });
      return { pid: 1234, write: () => undefined, end: () => undefined, kill: () => undefined, done: Promise.resolve(exit) };
    },
    run: async (): Promise<RunResult> => ({ ...exit, stdout: `${CONTAINER}\n`, stderr: '' }),
  };
  return { runner, started };
}

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'ralph-gate-sandbox-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const project = join(root, 'project');
  const home = join(root, 'home');
  const bin = join(root, 'bin');
  for (const dir of [project, join(project, '.ralph'), home, bin]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ scripts: { test: 'vitest run' } }));
  for (const tool of ['bwrap', 'docker', 'npm']) {
    writeFileSync(join(bin, tool), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, tool), 0o755);
  }
  const env: NodeJS.ProcessEnv = { PATH: bin, HOME: home, SSH_AUTH_SOCK: join(root, 'agent.sock'), SECRET_TOKEN: 'sk-do-not-leak' };
  const { runner, started } = recordingRunner();
  return { root, project, home, bin, env, runner, started };
}

async function runGate(s: ReturnType<typeof setup>, sandbox: Sandbox): Promise<Started> {
  await sandbox.start();
  cleanups.push(() => sandbox.stop());
  await runVerificationGate({
    commands: [{ command: 'npm test', role: 'test' }],
    projectDir: s.project,
    env: s.env,
    timeoutMs: 60_000,
    processRunner: s.runner,
    clock: fakeClock(),
    sandbox,
    tempDir: join(s.project, '.ralph'),
  });
  // The Docker sandbox's watchdog (node, started with the container) is not the gate's command.
  const commands = s.started.filter((started) => started.cmd !== process.execPath);
  expect(commands).toHaveLength(1);
  return commands[0]!;
}

const reportOption = (args: readonly string[]) => args.find((a) => a.startsWith('--outputFile.json='))!.slice('--outputFile.json='.length);

describe('the verification gate under each sandbox provider', () => {
  it('none: runs the command on the host, as given', async () => {
    const s = setup();
    const started = await runGate(s, hostExecution());
    expect(started.cmd).toBe('npm');
    expect(started.args.slice(0, 2)).toEqual(['test', '--']);
    expect(reportOption(started.args).startsWith(join(s.project, '.ralph', 'ralph-verify-'))).toBe(true);
    expect(started.env.CI).toBe('true');
  });

  it('bwrap: runs the command inside bubblewrap, as the agent runs', async () => {
    const s = setup();
    // Run as root, the sandbox runs the gate as the project's owner: an ordinary user's project.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chownSync(s.project, 1000, 1000);
    const sandbox = createBwrapSandbox({
      projectDir: s.project,
      homeDir: s.home,
      env: s.env,
      binds: [],
      network: 'bridge',
      passEnv: [],
      processRunner: s.runner,
      logger: createMemoryLogger(),
    });
    const started = await runGate(s, sandbox);
    expect(started.cmd).toBe(join(s.bin, 'bwrap'));
    const args = [...started.args];
    const sep = args.indexOf('--');
    const options = args.slice(0, sep).join(' ');
    expect(options).not.toContain('--ro-bind / /');
    expect(options).toContain(`--bind ${s.project} ${s.project}`);
    expect(options).toContain(asRoot ? '--unshare-pid' : '--unshare-user');
    if (!asRoot) expect(options).toContain('--cap-drop ALL');
    expect(options).toContain('--unshare-pid');
    const inside = args.slice(sep + 1);
    if (asRoot) expect(inside.slice(0, 3)).toEqual([expect.stringMatching(/\/setpriv$/), '--reuid=1000', '--regid=1000']);
    expect(inside.slice(inside.indexOf(join(s.bin, 'npm')), inside.indexOf(join(s.bin, 'npm')) + 3)).toEqual([join(s.bin, 'npm'), 'test', '--']);
    // The report is written inside the project, the one place both sides see.
    expect(reportOption(args).startsWith(join(s.project, '.ralph', 'ralph-verify-'))).toBe(true);
    expect(started.env.SSH_AUTH_SOCK).toBeUndefined();
    expect(started.env.CI).toBe('true');
  });

  it('docker: runs the command in the run container, the report at its container path', async () => {
    const s = setup();
    if (process.getuid?.() === 0) chownSync(s.project, 1000, 1000);
    const sandbox = createDockerSandbox({
      image: 'ralph-sandbox:test',
      memory: '1g',
      cpus: '1',
      network: 'bridge',
      passEnv: [],
      projectDir: s.project,
      ralphDir: join(s.project, '.ralph'),
      homeDir: s.home,
      env: s.env,
      processRunner: s.runner,
      logger: createMemoryLogger(),
      clock: fakeClock(),
      packageRoot: s.root,
    });
    const started = await runGate(s, sandbox);
    expect(started.cmd).toBe(join(s.bin, 'docker'));
    // The watchdog that removes the container if ralph dies without doing it: given the same docker.
    expect(s.started.filter((one) => one.cmd === process.execPath).map((one) => one.args[1])).toEqual([join(s.bin, 'docker')]);
    const args = [...started.args];
    expect(args.slice(0, args.indexOf(CONTAINER) + 4)).toEqual([
      'exec',
      '-i',
      '-w',
      '/workspace',
      '-e',
      'NO_COLOR',
      '-e',
      'FORCE_COLOR',
      '-e',
      'CI',
      CONTAINER,
      'npm',
      'test',
      '--',
    ]);
    expect(reportOption(args)).toMatch(/^\/workspace\/\.ralph\/ralph-verify-[^/]+\/report-0$/);
    expect(args.join(' ')).not.toContain('sk-do-not-leak');
    expect(started.env.CI).toBe('true');
  });
});
