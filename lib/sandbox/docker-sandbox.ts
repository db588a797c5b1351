// The Docker sandbox, compatible with the Bash tool's lib/sandbox_docker.sh: one long-lived
// container per run (`ralph-sandbox-<pid>-<epoch>`, --init, the host's uid:gid), the project
// mounted read-write at /workspace, a private home from the 0700 runtime dir, and each loop's
// agent run with `docker exec -i -w /workspace`. The API key reaches the container through an
// env-file written 0600, never through an argv. On a timeout the container is restarted (a
// killed `docker exec` client leaves its process running inside); before each loop a container
// that stopped (out of memory, a daemon restart) is started again and one that is gone is made
// anew, as the Bash tool's per-loop check does; on every exit it is removed and the secrets
// deleted. Its state is in .ralph/.docker_sandbox_state. A container whose ralph was killed with
// -9 is removed by the next ralph's start, found by the owner labels it carries.

import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { isAbsolute, join, posix, relative, sep } from 'node:path';
import type { AgentInvocation } from '../agents/agent-adapter.js';
import type { SandboxNetwork } from './sandbox-settings.js';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/deps.js';
import type { ProcessRunner } from '../platform/process.js';
import { readOnlyGuardedPaths } from '../containment/guarded-paths.js';
import { writeFileAtomic, writeJsonAtomic } from '../state/atomic-write.js';
import { isProcessAlive } from '../state/process-alive.js';
import { formatIsoTimestamp } from '../state/timestamps.js';
import { checkDocker, dockerFailure } from './docker-checks.js';
import { createRuntimeDir, type RuntimeDir } from './runtime-dir.js';
import type { Sandbox } from './sandbox.js';

/** The agents' API keys, passed to the container through the env-file when set. */
export const API_KEY_VARS = ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'OPENAI_API_KEY', 'CODEX_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY'];

/** Where the container sees its private home. */
export const CONTAINER_HOME = '/ralph-home';

export interface DockerSettings {
  image: string;
  memory: string;
  cpus: string;
  network: SandboxNetwork;
}

export interface DockerSandboxOptions extends DockerSettings {
  projectDir: string;
  ralphDir: string;
  homeDir: string;
  env: NodeJS.ProcessEnv;
  processRunner: ProcessRunner;
  logger: Logger;
  clock: Clock;
  /** The ralph package, whose Dockerfile builds the default image. */
  packageRoot: string;
}

export const DOCKER_STATE_FILE = '.docker_sandbox_state';

const OWNER_HOST_LABEL = 'ralph.sandbox.host';
const OWNER_PID_LABEL = 'ralph.sandbox.pid';

/** The ralph process that made a container, as its labels record it. */
export interface ContainerOwner {
  host: string;
  pid: number;
}

/**
 * Removes the sandbox containers a dead ralph on this host left running (killed with -9, the
 * old agent still at work inside): found by their owner labels, never by a name in `.ralph/`
 * (the agent can write that file). Returns the names removed, for the caller to say so.
 */
export async function removeDeadContainers(run: (args: string[]) => Promise<{ code: number | null; stdout: string }>, host: string): Promise<string[]> {
  const listed = await run(['ps', '-a', '--filter', `label=${OWNER_HOST_LABEL}=${host}`, '--format', `{{.ID}}\t{{.Label "${OWNER_PID_LABEL}"}}\t{{.Names}}`]);
  if (listed.code !== 0) return [];
  const removed: string[] = [];
  for (const line of listed.stdout.split('\n')) {
    const [id, pidText, name] = line.trim().split('\t');
    const pid = Number(pidText);
    if (!id || !Number.isInteger(pid) || pid <= 0 || pid === process.pid || isProcessAlive(pid)) continue;
    if ((await run(['rm', '-f', id])).code === 0) removed.push(name || id);
  }
  return removed;
}

/** `docker run`'s arguments for the run's container (no secret among them). */
export function dockerRunArgs(
  options: DockerSettings & {
    name: string; projectDir: string; home: string; envFile?: string; uid: number; gid: number; readOnly?: readonly string[]; owner: ContainerOwner;
  },
): string[] {
  return [
    'run', '-d', '--init',
    '--name', options.name,
    // Who made it, on the container itself (the agent cannot write it): the next ralph removes it
    // when that ralph is dead (removeDeadContainers).
    '--label', `${OWNER_HOST_LABEL}=${options.owner.host}`,
    '--label', `${OWNER_PID_LABEL}=${options.owner.pid}`,
    '--user', `${options.uid}:${options.gid}`,
    // No capability and no way to gain one (setuid binaries in the image included).
    '--cap-drop', 'ALL',
    '--security-opt', 'no-new-privileges',
    '-v', `${options.projectDir}:/workspace`,
    // The guarded files (.ralphrc, git's config and hooks, the agents' settings) read-only.
    ...(options.readOnly ?? []).flatMap((path) => ['-v', `${path}:${containerPath(options.projectDir, path)}:ro`]),
    '-w', '/workspace',
    '--memory', options.memory,
    '--cpus', options.cpus,
    '--network', options.network,
    ...(options.envFile ? ['--env-file', options.envFile] : []),
    '-v', `${options.home}:${CONTAINER_HOME}`,
    '-e', `HOME=${CONTAINER_HOME}`,
    options.image,
    'sleep', 'infinity',
  ];
}

/**
 * `docker exec`'s arguments for one agent run. The adapter's variables are named with `-e NAME`
 * (docker reads their values from its own environment), so no value lands in an argv.
 */
export function dockerExecArgs(containerId: string, invocation: AgentInvocation): string[] {
  const names = Object.keys(invocation.env ?? {});
  return ['exec', '-i', '-w', '/workspace', ...names.flatMap((name) => ['-e', name]), containerId, invocation.cmd, ...invocation.args];
}

/** Where a host path inside the project is in the container (the project is /workspace). */
export function containerPath(projectDir: string, hostPath: string): string {
  const rel = relative(projectDir, hostPath);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`not inside the project: ${hostPath}`);
  return rel === '' ? '/workspace' : posix.join('/workspace', ...rel.split(sep));
}

export function createDockerSandbox(options: DockerSandboxOptions): Sandbox {
  const statePath = join(options.ralphDir, DOCKER_STATE_FILE);
  const createdAt = formatIsoTimestamp(options.clock.now());
  let docker = 'docker';
  let runtime: RuntimeDir | undefined;
  let containerId = '';
  let name = '';
  let status = 'initialized';

  const saveState = (next: string) => {
    status = next;
    writeJsonAtomic(statePath, {
      provider: 'docker',
      image: options.image,
      memory: options.memory,
      cpus: options.cpus,
      network: options.network,
      container_id: containerId,
      name,
      status,
      created_at: createdAt,
      updated_at: formatIsoTimestamp(options.clock.now()),
    });
  };
  const run = (args: string[], timeoutMs = 120_000) => options.processRunner.run(docker, args, { env: options.env, cwd: options.projectDir, timeoutMs });
  let runArgs: string[] = [];
  const createContainer = async () => {
    const result = await run(runArgs);
    containerId = result.stdout.trim().split('\n').pop()?.trim() ?? '';
    if (result.code !== 0 || containerId === '') {
      containerId = '';
      throw dockerFailure(`Failed to start the sandbox container: ${result.stderr.trim() || `docker run exited ${String(result.code)}`}`);
    }
    saveState('running');
  };

  return {
    provider: 'docker',
    async start() {
      docker = await checkDocker({ ...options, image: options.image });
      for (const left of await removeDeadContainers(run, hostname())) {
        options.logger.warn(`Removed the sandbox container ${left} left by a ralph that is no longer running`);
      }
      saveState('initialized');
      runtime = createRuntimeDir({ env: options.env, homeDir: options.homeDir });
      const envFile = writeEnvFile(runtime, options.env, options.logger);
      if (!envFile && runtime.seededCredentials) options.logger.info('Sandbox credentials: seeded the container home with the CLI credentials file');
      if (!envFile && !runtime.seededCredentials) {
        options.logger.warn('No credentials for the sandbox (no API key set, no ~/.claude/.credentials.json): the agent may fail to authenticate inside it');
      }
      name = `ralph-sandbox-${process.pid}-${Math.floor(options.clock.now() / 1000)}`;
      runArgs = dockerRunArgs({
        ...options, name, home: runtime.home, envFile, uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0,
        readOnly: readOnlyGuardedPaths(options.projectDir), owner: { host: hostname(), pid: process.pid },
      });
      await createContainer();
      options.logger.success(`Sandbox container started: ${containerId.slice(0, 12)} (image: ${options.image}, network: ${options.network})`);
    },
    async ensureRunning() {
      if (!containerId) throw new Error('docker sandbox used before start()');
      const inspected = await run(['inspect', '--format', '{{.State.Running}}', containerId], 30_000);
      const running = inspected.stdout.trim();
      if (inspected.code === 0 && running === 'true') return;
      const shortId = containerId.slice(0, 12);
      if (inspected.code === 0) {
        options.logger.warn(`Sandbox container ${shortId} had stopped: starting it again`);
        const started = await run(['start', containerId]);
        if (started.code === 0) {
          saveState('running');
          return;
        }
        // Being removed, or broken: a new one it is.
        options.logger.warn(`Sandbox container ${shortId} could not be started (${started.stderr.trim().split('\n')[0] || `docker start exited ${String(started.code)}`}): creating a new one`);
      } else {
        options.logger.warn(`Sandbox container ${shortId} is gone: creating a new one`);
      }
      // A removal still under way keeps the run's container name taken until it is done.
      await run(['rm', '-f', containerId]);
      await createContainer();
      options.logger.success(`Sandbox container started: ${containerId.slice(0, 12)} (image: ${options.image}, network: ${options.network})`);
    },
    wrap(invocation, env) {
      if (!containerId) throw new Error('docker sandbox used before start()');
      return { cmd: docker, args: dockerExecArgs(containerId, invocation), stdin: invocation.stdin, env: { ...env, ...invocation.env } };
    },
    pathInside: (hostPath) => containerPath(options.projectDir, hostPath),
    async afterTimeout() {
      if (!containerId) return;
      options.logger.warn('Sandbox timeout: restarting the container to reap the processes the agent left');
      const result = await run(['restart', '-t', '5', containerId]);
      if (result.code !== 0) options.logger.warn(`Failed to restart the sandbox container ${containerId.slice(0, 12)}`);
    },
    async stop() {
      if (containerId) {
        const result = await run(['rm', '-f', containerId]);
        if (result.code !== 0) options.logger.warn(`Failed to remove the sandbox container ${containerId.slice(0, 12)}: ${result.stderr.trim()}`);
        else options.logger.info('Sandbox container stopped and removed');
        containerId = '';
        saveState('stopped');
      }
      runtime?.remove();
      runtime = undefined;
    },
    stopNow() {
      if (containerId) spawnSync(docker, ['rm', '-f', containerId], { stdio: 'ignore', env: options.env, timeout: 30_000 });
      runtime?.remove();
      runtime = undefined;
    },
    status: () => ({ provider: 'docker', container_id: containerId, status }),
  };
}

/** The API keys set in ralph's environment, in a 0600 env-file; its path, or undefined when none is set. */
function writeEnvFile(runtime: RuntimeDir, env: NodeJS.ProcessEnv, logger: Logger): string | undefined {
  const lines: string[] = [];
  for (const key of API_KEY_VARS) {
    const value = env[key];
    if (value === undefined || value === '') continue;
    // The env-file format has no quoting: a value spanning lines cannot be passed whole.
    if (/[\r\n]/.test(value)) {
      logger.warn(`${key} spans several lines: not passed to the sandbox`);
      continue;
    }
    lines.push(`${key}=${value}`);
  }
  if (lines.length === 0) return undefined;
  const path = join(runtime.path, 'env');
  writeFileAtomic(path, `${lines.join('\n')}\n`, { mode: 0o600 });
  logger.info(`Sandbox credentials: ${lines.map((line) => line.split('=', 1)[0]).join(', ')} via env-file`);
  return path;
}
