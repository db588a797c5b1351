// The Docker sandbox, compatible with the Bash tool's lib/sandbox_docker.sh: one container per run
// (`ralph-sandbox-<pid>-<epoch>-<random>`, --init, never root: the user's uid:gid, or the project's owner
// when ralph runs as root), the project mounted read-write at /workspace, a private home from the
// 0700 runtime dir, a process limit, and each call run with `docker exec -i -w /workspace`. The
// call gets the sandbox's allow-list of variables (sandbox-env.ts: the running agent's credentials
// among them), each named with `-e NAME` so its value comes from the docker client's environment:
// never in an argv, a file, or the container's configuration that `docker inspect` shows. After
// each call the container is restarted, which ends every process the call left running in it,
// before ralph looks at the project. Before each call a container that stopped (out of memory, a
// daemon restart) is started again and one that is gone is made anew, as the Bash tool's per-loop
// check does; on every exit it is removed and the private home deleted. Its state is in
// .ralph/.docker_sandbox_state. A container whose ralph was killed with -9 is removed by the
// watchdog ralph started for it (sandbox-watchdog.ts) as soon as ralph is gone; one that outlived
// that too, by the next ralph's start, found by the owner labels it carries.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isAbsolute, join, posix, relative, sep } from 'node:path';
import type { AgentInvocation } from '../agents/agent-adapter.js';
import type { SandboxNetwork } from './sandbox-settings.js';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/deps.js';
import type { ProcessRunner } from '../platform/process.js';
import { readOnlyGuardedPaths } from '../containment/guarded-paths.js';
import { writeJsonAtomic } from '../state/atomic-write.js';
import { worktreeGitMounts, type WorktreeGitMounts } from './worktree-git.js';
import { isProcessAlive } from '../state/process-alive.js';
import { formatIsoTimestamp } from '../state/timestamps.js';
import { checkDocker, dockerFailure } from './docker-checks.js';
import { chooseAgentUser, readOwner } from './agent-user.js';
import { SANDBOX_PROCESS_ALLOWANCE } from './process-limit.js';
import { createRuntimeDir, type RuntimeDir } from './runtime-dir.js';
import { filterSandboxEnv, HOST_PATH_ENV, sandboxEnvPatterns } from './sandbox-env.js';
import { stripPlantedSetuid, walkedFolders } from './strip-setuid.js';
import { createTreeChanges } from '../platform/tree-changes.js';
import { watchOverContainer } from './sandbox-watchdog.js';
import type { Sandbox } from './sandbox.js';

/** At most this many processes in the container (a fork bomb stops there): bubblewrap's allowance too. */
export const SANDBOX_PIDS_LIMIT = SANDBOX_PROCESS_ALLOWANCE;

/** How long a container removal under way may take before ralph gives up on it. */
const GONE_WAIT_MS = 30_000;

/** Where the container sees its private home. */
export const CONTAINER_HOME = '/ralph-home';

export interface DockerSettings {
  image: string;
  memory: string;
  cpus: string;
  network: SandboxNetwork;
}

export interface DockerSandboxOptions extends DockerSettings {
  /** SANDBOX_ENV: more variable names (or PREFIX*) passed in. */
  passEnv: readonly string[];
  projectDir: string;
  /** WORK_DIRS, absolute: mounted where the project's relative paths to them lead from /workspace. */
  workDirs?: readonly string[];
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
    name: string;
    projectDir: string;
    home: string;
    uid: number;
    gid: number;
    readOnly?: readonly string[];
    owner: ContainerOwner;
    /** A linked worktree's git data (a ralph --parallel unit), mounted at its host paths, where the worktree's .git file points. */
    worktreeGit?: WorktreeGitMounts;
    workDirs?: readonly string[];
  },
): string[] {
  return [
    'run',
    '-d',
    '--init',
    '--name',
    options.name,
    // Who made it, on the container itself (the agent cannot write it): the next ralph removes it
    // when that ralph is dead (removeDeadContainers).
    '--label',
    `${OWNER_HOST_LABEL}=${options.owner.host}`,
    '--label',
    `${OWNER_PID_LABEL}=${options.owner.pid}`,
    '--user',
    `${options.uid}:${options.gid}`,
    // No capability and no way to gain one (setuid binaries in the image included).
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    '-v',
    `${options.projectDir}:/workspace`,
    // WORK_DIRS where the project's relative paths lead (../../libs/shared from /workspace: /libs/shared).
    ...(options.workDirs ?? []).flatMap((dir) => ['-v', `${dir}:${posix.resolve('/workspace', ...relative(options.projectDir, dir).split(sep))}`]),
    // The guarded files (.ralphrc, git's config and hooks, the agents' settings) read-only.
    ...(options.readOnly ?? []).flatMap((path) => ['-v', `${path}:${containerPath(options.projectDir, path)}:ro`]),
    ...(options.worktreeGit?.writable ?? []).flatMap((path) => ['-v', `${path}:${path}`]),
    ...(options.worktreeGit?.readOnly ?? []).flatMap((path) => ['-v', `${path}:${path}:ro`]),
    '-w',
    '/workspace',
    '--memory',
    options.memory,
    '--cpus',
    options.cpus,
    '--pids-limit',
    String(SANDBOX_PIDS_LIMIT),
    '--network',
    options.network,
    '-v',
    `${options.home}:${CONTAINER_HOME}`,
    '-e',
    `HOME=${CONTAINER_HOME}`,
    options.image,
    'sleep',
    'infinity',
  ];
}

/**
 * `docker exec`'s arguments for one call. Its variables are named with `-e NAME` (docker reads
 * their values from its own environment), so no value lands in an argv or the container's config.
 */
export function dockerExecArgs(containerId: string, invocation: AgentInvocation, names: readonly string[] = Object.keys(invocation.env ?? {})): string[] {
  return ['exec', '-i', '-w', '/workspace', ...names.flatMap((name) => ['-e', name]), containerId, invocation.cmd, ...invocation.args];
}

/**
 * The names a call gets inside the container: the sandbox's allow-list of ralph's variables that
 * are set, except those holding a host path (the container has its own PATH, home and temp),
 * and the invocation's own.
 */
export function containerEnvNames(env: NodeJS.ProcessEnv, invocation: AgentInvocation, passEnv: readonly string[]): string[] {
  const allowed = Object.keys(filterSandboxEnv(env, sandboxEnvPatterns(invocation.passEnv, passEnv))).filter((name) => !HOST_PATH_ENV.includes(name));
  return [...new Set([...allowed, ...Object.keys(invocation.env ?? {})])];
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
  // The walk after each call names what changed for the content snapshot too.
  const changes = createTreeChanges();
  const workDirs = walkedFolders(options.workDirs);

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

  /** Whether the container is gone, waiting up to GONE_WAIT_MS for a removal under way. */
  const containerGone = async (id: string): Promise<boolean> => {
    const deadline = options.clock.now() + GONE_WAIT_MS;
    for (;;) {
      if ((await run(['inspect', '--format', '{{.Id}}', id], 30_000)).code !== 0) return true;
      if (options.clock.now() >= deadline) return false;
      await options.clock.sleep(250);
    }
  };

  return {
    changes,
    provider: 'docker',
    async start() {
      docker = await checkDocker({ ...options, image: options.image });
      for (const left of await removeDeadContainers(run, hostname())) {
        options.logger.warn(`Removed the sandbox container ${left} left by a ralph that is no longer running`);
      }
      saveState('initialized');
      const user = chooseAgentUser({ uid: process.getuid?.(), gid: process.getgid?.() }, readOwner(options.projectDir), options.projectDir);
      runtime = createRuntimeDir({ env: options.env, homeDir: options.homeDir, owner: user.switchTo ? user : undefined });
      if (runtime.seededCredentials) options.logger.info('Sandbox credentials: seeded the container home with the CLI credentials file');
      // Unique among the sandboxes of one ralph (the units of ralph --parallel start in the same second).
      name = `ralph-sandbox-${process.pid}-${Math.floor(options.clock.now() / 1000)}-${randomBytes(4).toString('hex')}`;
      runArgs = dockerRunArgs({
        ...options,
        name,
        home: runtime.home,
        uid: user.uid,
        gid: user.gid,
        readOnly: readOnlyGuardedPaths(options.projectDir),
        owner: { host: hostname(), pid: process.pid },
        worktreeGit: worktreeGitMounts(options.projectDir),
      });
      await createContainer();
      // Removed with its private home by the watchdog if this ralph dies without removing them (kill -9).
      watchOverContainer({ runner: options.processRunner, docker, env: options.env, container: name, folder: runtime.path });
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
        options.logger.warn(
          `Sandbox container ${shortId} could not be started (${started.stderr.trim().split('\n')[0] || `docker start exited ${String(started.code)}`}): creating a new one`,
        );
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
      const names = containerEnvNames({ ...env, ...invocation.env }, invocation, options.passEnv);
      return { cmd: docker, args: dockerExecArgs(containerId, invocation, names), stdin: invocation.stdin, env: { ...env, ...invocation.env } };
    },
    pathInside: (hostPath) => containerPath(options.projectDir, hostPath),
    async afterCall() {
      if (containerId) {
        // A restart ends every process in the container (its init and the pid namespace with it),
        // and the container comes back empty for the next call.
        const result = await run(['restart', '-t', '0', containerId]);
        if (result.code !== 0) {
          const shortId = containerId.slice(0, 12);
          const removed = await run(['rm', '-f', containerId]);
          // A removal already under way (someone's `docker rm -f`) fails ours: wait until it is gone.
          if (removed.code !== 0 && !(await containerGone(containerId))) {
            throw dockerFailure(
              `Could not end what the agent left running in the sandbox container ${shortId}: ${removed.stderr.trim().split('\n')[0] || `docker rm exited ${String(removed.code)}`}`,
              ['ralph stops rather than look at the project while the agent may still be changing it.'],
              'remove the container (docker rm -f), then run ralph again',
            );
          }
          options.logger.warn(`Sandbox container ${shortId} could not be restarted after the call: removed, a new one comes for the next call`);
          await createContainer();
        }
      }
      await stripPlantedSetuid(options.projectDir, options.logger, { processRunner: options.processRunner, env: options.env, changes });
      // WORK_DIRS are mounted for the agent to write as well.
      for (const dir of workDirs) await stripPlantedSetuid(dir, options.logger, { processRunner: options.processRunner, env: options.env });
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
