// The bubblewrap sandbox: the agent sees `/` read-only, the project read-write, a private
// writable home (mounted over the real one, which it never sees) and a private /tmp, in its own
// pid namespace that dies with ralph (--unshare-pid --die-with-parent): a daemon it forks cannot
// outlive the run. The network is shared (the agent needs its API) unless it is `none`.
// The project's guarded files (.ralphrc, git's config and hooks, the agents' settings) are
// mounted read-only over it: what configures the programs ralph runs cannot change in a call.
// It runs in a user namespace of its own with every capability dropped, so as root too it can
// neither remount nor unmount; host socket directories (/run, $XDG_RUNTIME_DIR, the SSH agent's)
// are covered by empty ones, since connect() works through a read-only mount.

import { existsSync, lstatSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import type { AgentInvocation } from '../agents/agent-adapter.js';
import type { SandboxNetwork } from './sandbox-settings.js';
import { stripTerminalControls } from '../text/terminal-text.js';
import { RalphError } from '../errors.js';
import { findExecutable } from '../platform/find-executable.js';
import { readOnlyGuardedPaths } from '../containment/guarded-paths.js';
import type { Logger } from '../platform/deps.js';
import type { ProcessRunner } from '../platform/process.js';
import { resolveAgentExecutable } from './agent-executable.js';
import { createRuntimeDir, type RuntimeDir } from './runtime-dir.js';
import type { Sandbox } from './sandbox.js';

export interface BwrapLayout {
  projectDir: string;
  /** The user's home: hidden behind `privateHome`. */
  realHome: string;
  privateHome: string;
  binds: readonly string[];
  network: SandboxNetwork;
  /** Host directories holding sockets, covered by an empty tmpfs (see socketDirectories). */
  socketDirs?: readonly string[];
  /** The project's guarded files (lib/containment/guarded-paths.ts), read-only over its read-write mount. */
  readOnly?: readonly string[];
}

/** bwrap's options, in mount order: later mounts go on top (the project inside the hidden home stays visible). */
export function bwrapOptions(layout: BwrapLayout): string[] {
  return [
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
    ...(layout.socketDirs ?? []).flatMap((dir) => ['--tmpfs', dir]),
    // A home of `/` (HOME unset for a service user) cannot be covered without covering everything.
    ...(layout.realHome === '/' ? [] : ['--bind', layout.privateHome, layout.realHome]),
    ...layout.binds.flatMap((path) => ['--ro-bind', path, path]),
    '--bind', layout.projectDir, layout.projectDir,
    ...(layout.readOnly ?? []).flatMap((path) => ['--ro-bind', path, path]),
    '--chdir', layout.projectDir,
    '--unshare-pid',
    // A user namespace of its own and no capability in it: as root, too, no mount or umount.
    '--unshare-user',
    '--cap-drop', 'ALL',
    '--die-with-parent',
    // A session of its own: the agent cannot push keystrokes into ralph's terminal (TIOCSTI).
    '--new-session',
    ...(layout.network === 'none' ? ['--unshare-net'] : []),
  ];
}

export interface BwrapSandboxOptions {
  projectDir: string;
  homeDir: string;
  env: NodeJS.ProcessEnv;
  binds: readonly string[];
  network: SandboxNetwork;
  processRunner: ProcessRunner;
  logger: Logger;
}

export function createBwrapSandbox(options: BwrapSandboxOptions): Sandbox {
  let bwrap = '';
  let runtime: RuntimeDir | undefined;
  let status = 'initialized';
  const layout = (): BwrapLayout => ({
    projectDir: options.projectDir,
    realHome: options.homeDir,
    privateHome: runtime!.home,
    binds: options.binds,
    network: options.network,
    socketDirs: socketDirectories(options.env, [options.projectDir, options.homeDir]),
    readOnly: readOnlyGuardedPaths(options.projectDir),
  });
  return {
    provider: 'bwrap',
    async start() {
      bwrap = await checkBwrap(options);
      runtime = createRuntimeDir({ env: options.env, homeDir: options.homeDir });
      status = 'running';
      options.logger.info(`Sandbox: bubblewrap (project read-write, / read-only, private home and /tmp, network ${options.network === 'none' ? 'off' : 'shared'})`);
    },
    wrap(invocation: AgentInvocation, env: NodeJS.ProcessEnv) {
      if (!runtime) throw new Error('bwrap sandbox used before start()');
      const inner: NodeJS.ProcessEnv = { ...env, ...invocation.env, TMPDIR: '/tmp' };
      // The user's SSH agent would sign for the agent; its directory is hidden too.
      delete inner.SSH_AUTH_SOCK;
      // The CLI's config dir is the private home's .claude, where its credentials were copied
      // (one elsewhere would be read-only or hidden inside).
      if (inner.CLAUDE_CONFIG_DIR !== undefined) inner.CLAUDE_CONFIG_DIR = join(options.homeDir, '.claude');
      // The agent may live in the hidden home or /tmp (~/.local/bin/claude): its own file, read-only.
      const agent = resolveAgentExecutable(invocation.cmd, { env: inner, cwd: options.projectDir, homeDir: options.homeDir });
      const args = [...bwrapOptions({ ...layout(), binds: [...options.binds, ...agent.binds] }), '--', agent.command, ...invocation.args];
      return { cmd: bwrap, args, stdin: invocation.stdin, env: inner };
    },
    // The project is bound at its own path.
    pathInside: (hostPath) => hostPath,
    // Each run is a fresh bwrap: nothing outlives a loop.
    ensureRunning: async () => undefined,
    // The agent's pid namespace died with it: nothing is left to reap.
    afterTimeout: async () => undefined,
    async stop() {
      this.stopNow();
    },
    stopNow() {
      runtime?.remove();
      runtime = undefined;
      status = 'stopped';
    },
    status: () => ({ provider: 'bwrap', status }),
  };
}

/**
 * Host directories where sockets live (the Docker daemon's, D-Bus, the user's session, the SSH
 * agent): /run (and /var/run when it is not a link to it), $XDG_RUNTIME_DIR and the directory
 * of $SSH_AUTH_SOCK, when they exist and hold none of `keep` (the project, the home).
 */
export function socketDirectories(env: NodeJS.ProcessEnv, keep: readonly string[]): string[] {
  const candidates = ['/run', '/var/run', env.XDG_RUNTIME_DIR, env.SSH_AUTH_SOCK ? dirname(env.SSH_AUTH_SOCK) : undefined];
  const dirs: string[] = [];
  for (const dir of candidates) {
    if (!dir || !isAbsolute(dir) || dir === '/' || dirs.some((d) => within(dir, d))) continue;
    if (keep.some((path) => within(path, dir)) || !isRealDirectory(dir)) continue;
    dirs.push(dir);
  }
  return dirs;
}

function within(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function isRealDirectory(dir: string): boolean {
  try {
    return existsSync(dir) && lstatSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** bwrap is installed and can build the sandbox here (namespaces allowed); its path. */
export async function checkBwrap(options: Pick<BwrapSandboxOptions, 'env' | 'projectDir' | 'network' | 'processRunner'>): Promise<string> {
  const bwrap = findExecutable('bwrap', options.env);
  if (!bwrap) {
    throw new RalphError('sandbox_unavailable', 'Sandbox bwrap asked for, but bubblewrap (bwrap) is not installed', {
      details: ['Refusing to run the agent on the host instead. Nothing was run.', 'Install it: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora)'],
      hint: 'install bubblewrap, or run without --sandbox / SANDBOX_PROVIDER',
    });
  }
  const probe = await options.processRunner.run(
    bwrap,
    ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-user', '--cap-drop', 'ALL', '--die-with-parent', ...(options.network === 'none' ? ['--unshare-net'] : []), '--', 'true'],
    { cwd: options.projectDir, env: options.env, timeoutMs: 30_000 },
  );
  if (probe.code === 0) return bwrap;
  const why = stripTerminalControls(probe.stderr.trim() || probe.spawnError?.message || `exit ${String(probe.code)}`).slice(0, 300);
  throw new RalphError('sandbox_unavailable', `Sandbox bwrap cannot run here: ${why}`, {
    details: [
      'Refusing to run the agent on the host instead. Nothing was run.',
      'bubblewrap needs user namespaces (or root). Where they are off, enable them:',
      '  sysctl -w kernel.unprivileged_userns_clone=1            (Debian)',
      '  sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (Ubuntu 24.04+)',
      'Inside a container, run it with --privileged or use --sandbox docker on the host.',
    ],
    hint: 'enable user namespaces, or run without --sandbox / SANDBOX_PROVIDER',
  });
}
