// The bubblewrap sandbox, an allow-list: the agent sees the system folders programs need to run
// (/usr and its kin, a few files of /etc), read-only; its own install, read-only; the project,
// read-write; a private writable home (mounted where the real one is, which it never sees) and a
// private /tmp and /var/tmp. Nothing else of the host is there: no other home, no /root, no /run,
// no /var, no /etc/shadow, and no host socket in any folder. In its own pid namespace that dies
// with ralph (--unshare-pid --die-with-parent), a daemon it forks cannot outlive the call, and
// under prlimit --nproc a fork flood fails inside (process-limit.ts); its own IPC and host name
// namespaces too. The network is shared (the agent needs its API) unless it is
// `none`. The project's guarded files (.ralphrc, the agents' settings) and what of `.git` says
// what git runs and where it looks (config, config.worktree, commondir, info/, hooks/,
// objects/info/) are mounted read-only over it, and `.git` is bound onto itself so it cannot be
// renamed or replaced: what configures the programs ralph runs cannot change in a call, while
// the agent can still commit (objects, refs, the index and the logs stay writable).
// As an ordinary user it runs in a user namespace of its own with every capability dropped; when
// ralph runs as root, the agent runs as the project's owner (never root: see agent-user.ts),
// switched to by setpriv inside the sandbox with no capability left and no way to gain one.

import { lstatSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentInvocation } from '../agents/agent-adapter.js';
import type { SandboxNetwork } from './sandbox-settings.js';
import { stripTerminalControls } from '../text/terminal-text.js';
import { RalphError } from '../errors.js';
import { findTrustedExecutable } from '../platform/find-executable.js';
import { pinnedGitDir, readOnlyGuardedPaths } from '../containment/guarded-paths.js';
import { worktreeGitMounts, type WorktreeGitMounts } from './worktree-git.js';
import type { Logger } from '../platform/deps.js';
import type { ProcessRunner } from '../platform/process.js';
import { resolveAgentExecutable } from './agent-executable.js';
import { chooseAgentUser, findSetpriv, readOwner, type AgentUser } from './agent-user.js';
import { findPrlimit, processesOfUser, SANDBOX_PROCESS_ALLOWANCE, withProcessLimit } from './process-limit.js';
import { createRuntimeDir, type RuntimeDir } from './runtime-dir.js';
import { filterSandboxEnv, sandboxEnvPatterns } from './sandbox-env.js';
import { stripPlantedSetuid } from './strip-setuid.js';
import { sandboxFilterBytes, setIdFilterCovers, type SandboxFilterOptions } from './seccomp-filter.js';
import type { Sandbox } from './sandbox.js';

/** A top-level system folder as the host has it: a real folder (bound read-only) or a link (made again). */
export type SystemEntry = { path: string; kind: 'dir' } | { path: string; kind: 'link'; target: string };

/** The top-level folders programs run from. */
export const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The files of /etc programs read to run: users and groups by name, name resolution, TLS roots,
 * time zone, the dynamic linker's cache, Debian's alternatives. No secret lives in any of them.
 */
export const SYSTEM_ETC = [
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/resolv.conf',
  '/etc/gai.conf',
  '/etc/services',
  '/etc/protocols',
  '/etc/networks',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/ca-certificates.conf',
  '/etc/pki',
  '/etc/crypto-policies',
  '/etc/localtime',
  '/etc/timezone',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/mime.types',
  '/etc/os-release',
  '/etc/debian_version',
  '/etc/locale.alias',
  '/etc/inputrc',
  '/etc/terminfo',
];

export interface BwrapLayout {
  projectDir: string;
  /** The user's home: hidden behind `privateHome`. */
  realHome: string;
  privateHome: string;
  /** The system folders as the host has them (systemEntries()); the /etc files are bound when present. */
  system: readonly SystemEntry[];
  /** Read-only binds: SANDBOX_BWRAP_BIND and the agent's own install. */
  binds: readonly string[];
  network: SandboxNetwork;
  /** The project's guarded files and git's own folders (lib/containment/guarded-paths.ts), read-only over its read-write mount. */
  readOnly?: readonly string[];
  /** The project's `.git` folder, bound onto itself (writable) so that it cannot be renamed or replaced. */
  pinnedGitDir?: string;
  /** WORK_DIRS (absolute): folders beside the project the agent also works in, read-write at the same path. */
  workDirs?: readonly string[];
  /** ralph runs as root: no user namespace (setpriv switches to the agent's user inside), capabilities kept for it. */
  asRoot?: boolean;
  /** A linked worktree's git data (a ralph --parallel unit): writable and read-only mounts at their own paths. */
  worktreeGit?: WorktreeGitMounts;
}

/** One mount: bwrap's words for it, where it lands, and whether the agent may write there. */
interface Mount {
  words: string[];
  dest: string;
  writable: boolean;
}

/** bwrap's options, in mount order: later mounts go on top (the project inside the hidden home stays visible). */
export function bwrapOptions(layout: BwrapLayout): string[] {
  const ro = (path: string): Mount => ({ words: ['--ro-bind', path, path], dest: path, writable: false });
  // As root the temp folders are root's: open them to the agent's user as /tmp is (bwrap 0.5+).
  // As an ordinary user they are already the agent's own.
  const sharedTemp = layout.asRoot ? ['--perms', '1777'] : [];
  const mounts: Mount[] = [
    // No `/` bind: the root is an empty tmpfs, and only what is listed here is in it.
    ...layout.system.map((entry): Mount =>
      entry.kind === 'dir' ? ro(entry.path) : { words: ['--symlink', entry.target, entry.path], dest: entry.path, writable: false },
    ),
    ...SYSTEM_ETC.map((path): Mount => ({ words: ['--ro-bind-try', path, path], dest: path, writable: false })),
    { words: ['--dev', '/dev'], dest: '/dev', writable: true },
    { words: ['--proc', '/proc'], dest: '/proc', writable: false },
    ...['/tmp', '/var/tmp', ...(layout.asRoot ? ['/dev/shm'] : [])].map((dest): Mount => ({ words: [...sharedTemp, '--tmpfs', dest], dest, writable: true })),
    // A home of `/` (HOME unset for a service user) is not mounted over the root.
    ...(layout.realHome === '/' ? [] : [{ words: ['--bind', layout.privateHome, layout.realHome], dest: layout.realHome, writable: true }]),
    ...layout.binds.map(ro),
    { words: ['--bind', layout.projectDir, layout.projectDir], dest: layout.projectDir, writable: true },
    ...(layout.worktreeGit?.writable ?? []).map((path): Mount => ({ words: ['--bind', path, path], dest: path, writable: true })),
    ...(layout.worktreeGit?.readOnly ?? []).map(ro),
    ...(layout.workDirs ?? []).map((dir): Mount => ({ words: ['--bind', dir, dir], dest: dir, writable: true })),
    ...(layout.pinnedGitDir ? [{ words: ['--bind', layout.pinnedGitDir, layout.pinnedGitDir], dest: layout.pinnedGitDir, writable: true }] : []),
    ...(layout.readOnly ?? []).map(ro),
  ];
  return [
    ...withParentFolders(mounts),
    '--chdir',
    layout.projectDir,
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    // As an ordinary user: a user namespace of its own and no capability in it (no mount or
    // umount). As root: setpriv drops to the agent's user and clears every capability itself.
    ...(layout.asRoot ? [] : ['--unshare-user', '--cap-drop', 'ALL']),
    '--die-with-parent',
    // A session of its own: the agent cannot push keystrokes into ralph's terminal (TIOCSTI).
    '--new-session',
    ...(layout.network === 'none' ? ['--unshare-net'] : []),
  ];
}

/**
 * The mounts, each preceded by the folders leading to it that no earlier mount made, made with
 * `--dir` (0755): bwrap would make them 0700 and root's, which the agent's user (ralph run as
 * root) cannot enter.
 * A folder inside a read-only mount is the host's own and is left alone.
 */
function withParentFolders(mounts: readonly Mount[]): string[] {
  const words: string[] = [];
  const made = new Set<string>();
  const earlier: Mount[] = [];
  for (const mount of mounts) {
    for (const parent of parentsOf(mount.dest)) {
      if (made.has(parent) || earlier.some((m) => m.dest === parent || (!m.writable && isUnder(parent, m.dest)))) continue;
      words.push('--dir', parent);
      made.add(parent);
    }
    words.push(...mount.words);
    earlier.push(mount);
  }
  return words;
}

/** `/a/b/c` → `/a`, `/a/b`. */
function parentsOf(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return parts.slice(0, -1).map((_, i) => `/${parts.slice(0, i + 1).join('/')}`);
}

function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/**
 * What runs inside for `command`: itself, or, when ralph is root, setpriv switching to the
 * agent's user first, with no capability in any set and no way to gain one (no_new_privs).
 */
export function commandInside(command: readonly string[], user: AgentUser, setpriv: string): string[] {
  if (!user.switchTo) return [...command];
  return [
    setpriv,
    `--reuid=${user.uid}`,
    `--regid=${user.gid}`,
    '--clear-groups',
    '--inh-caps=-all',
    '--bounding-set=-all',
    '--no-new-privs',
    '--',
    ...command,
  ];
}

/** The host's system folders, each a folder or a link (merged /usr makes /bin a link to usr/bin). */
export function systemEntries(): SystemEntry[] {
  const entries: SystemEntry[] = [];
  for (const path of SYSTEM_DIRS) {
    try {
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) entries.push({ path, kind: 'link', target: readlinkSync(path) });
      else if (stats.isDirectory()) entries.push({ path, kind: 'dir' });
    } catch {
      // not on this system
    }
  }
  return entries;
}

export interface BwrapSandboxOptions {
  projectDir: string;
  homeDir: string;
  env: NodeJS.ProcessEnv;
  binds: readonly string[];
  network: SandboxNetwork;
  /** SANDBOX_ENV: more variable names (or PREFIX*) passed in. */
  passEnv: readonly string[];
  /** WORK_DIRS, absolute. */
  workDirs?: readonly string[];
  processRunner: ProcessRunner;
  logger: Logger;
}

export function createBwrapSandbox(options: BwrapSandboxOptions): Sandbox {
  let bwrap = '';
  let setpriv = '';
  let prlimit = '';
  let user: AgentUser | undefined;
  let system: SystemEntry[] = [];
  let runtime: RuntimeDir | undefined;
  let seccomp: string | undefined;
  let filter: SandboxFilterOptions | undefined;
  // The project was swept whole after a call made under the set-id filter.
  let swept = false;
  let status = 'initialized';
  const layout = (): BwrapLayout => ({
    projectDir: options.projectDir,
    realHome: options.homeDir,
    privateHome: runtime!.home,
    system,
    binds: options.binds,
    network: options.network,
    pinnedGitDir: pinnedGitDir(options.projectDir, { make: true }),
    readOnly: readOnlyGuardedPaths(options.projectDir),
    workDirs: options.workDirs,
    asRoot: user?.switchTo,
    worktreeGit: worktreeGitMounts(options.projectDir),
  });
  return {
    provider: 'bwrap',
    async start() {
      bwrap = await checkBwrap(options);
      user = chooseAgentUser({ uid: process.getuid?.(), gid: process.getgid?.() }, readOwner(options.projectDir), options.projectDir);
      if (user.switchTo) setpriv = findSetpriv();
      prlimit = findPrlimit();
      system = systemEntries();
      runtime = createRuntimeDir({ env: options.env, homeDir: options.homeDir, owner: user.switchTo ? user : undefined });
      filter = {
        // With the host network shared, its abstract unix sockets are reachable: no new unix socket.
        unixSockets: options.network !== 'none',
        // No setuid or setgid bit can be set inside (where the filter knows the machine's calls).
        setIdBits: setIdFilterCovers(),
      };
      if (filter.unixSockets || filter.setIdBits) {
        seccomp = join(runtime.path, 'seccomp.bpf');
        writeFileSync(seccomp, sandboxFilterBytes(filter), { mode: 0o600, flag: 'wx' });
      }
      status = 'running';
      const as = user.switchTo ? `, as uid ${user.uid} (the project's owner)` : '';
      options.logger.info(
        `Sandbox: bubblewrap (project read-write, system folders read-only, private home and /tmp, network ${options.network === 'none' ? 'off' : 'shared'}${as})`,
      );
    },
    wrap(invocation: AgentInvocation, env: NodeJS.ProcessEnv) {
      if (!runtime || !user) throw new Error('bwrap sandbox used before start()');
      const inner = bwrapEnvironment(env, invocation, options);
      // The agent may live in the hidden home or /tmp (~/.local/bin/claude): its own file, read-only.
      const agent = resolveAgentExecutable(invocation.cmd, { env: inner, cwd: options.projectDir, homeDir: options.homeDir });
      // The filter reaches bwrap as file descriptor 3.
      const filterArgs = seccomp === undefined ? [] : ['--seccomp', '3'];
      // A fork flood ends inside (see process-limit.ts); the owner's own processes are counted too.
      const limit = SANDBOX_PROCESS_ALLOWANCE + (user.switchTo ? processesOfUser(user.uid) : 0);
      const args = [
        ...bwrapOptions({ ...layout(), binds: [...options.binds, ...agent.binds] }),
        ...filterArgs,
        '--',
        ...commandInside(withProcessLimit([agent.command, ...invocation.args], prlimit, limit), user, setpriv),
      ];
      return { cmd: bwrap, args, stdin: invocation.stdin, env: inner, ...(seccomp === undefined ? {} : { inheritFiles: [seccomp] }) };
    },
    // The project is bound at its own path.
    pathInside: (hostPath) => hostPath,
    // Each run is a fresh bwrap: nothing outlives a loop.
    ensureRunning: async () => undefined,
    // The call's pid namespace died with it (bwrap exits only once its init is gone, and every
    // process in it with it): nothing of the agent runs. What it may have planted: setuid bits.
    // Under the set-id filter no call inside can set one, so one sweep, after the first call,
    // clears the bits the project had before (which the agent could have linked or renamed),
    // and later calls need none.
    async afterCall() {
      if (swept) return;
      await stripPlantedSetuid(options.projectDir, options.logger, { processRunner: options.processRunner, env: options.env });
      swept = filter?.setIdBits === true;
    },
    async stop() {
      this.stopNow();
    },
    stopNow() {
      runtime?.remove();
      runtime = undefined;
      seccomp = undefined;
      filter = undefined;
      swept = false;
      status = 'stopped';
    },
    status: () => ({ provider: 'bwrap', status }),
  };
}

/**
 * The sandboxed process's environment: the allow-list (sandbox-env.ts) of ralph's, then the
 * invocation's own variables, with the sandbox's temp and the private home's config dir.
 */
export function bwrapEnvironment(
  env: NodeJS.ProcessEnv,
  invocation: AgentInvocation,
  options: Pick<BwrapSandboxOptions, 'homeDir' | 'passEnv'>,
): NodeJS.ProcessEnv {
  const inner: NodeJS.ProcessEnv = { ...filterSandboxEnv(env, sandboxEnvPatterns(invocation.passEnv, options.passEnv)), ...invocation.env, TMPDIR: '/tmp' };
  // The CLI's config dir is the private home's .claude, where its credentials were copied
  // (one elsewhere would be hidden inside).
  if (inner.CLAUDE_CONFIG_DIR !== undefined) inner.CLAUDE_CONFIG_DIR = join(options.homeDir, '.claude');
  return inner;
}

/** bwrap is installed and can build the sandbox here (namespaces allowed); its path. */
export async function checkBwrap(options: Pick<BwrapSandboxOptions, 'env' | 'projectDir' | 'network' | 'processRunner'>): Promise<string> {
  const bwrap = findTrustedExecutable('bwrap', options.env, [options.projectDir]);
  if (!bwrap) {
    throw new RalphError('sandbox_unavailable', 'Sandbox bwrap asked for, but bubblewrap (bwrap) is not installed', {
      details: [
        'Refusing to run the agent on the host instead. Nothing was run.',
        'Install it: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora)',
      ],
      hint: 'install bubblewrap, or run without --sandbox / SANDBOX_PROVIDER',
    });
  }
  const probe = await options.processRunner.run(
    bwrap,
    [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--unshare-pid',
      '--unshare-user',
      '--cap-drop',
      'ALL',
      '--die-with-parent',
      ...(options.network === 'none' ? ['--unshare-net'] : []),
      '--',
      'true',
    ],
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
