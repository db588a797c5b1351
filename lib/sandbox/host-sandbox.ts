// No sandbox: the agent and the gate's commands run on the host, as the adapter built them —
// and never as root. ralph run as root runs them as the project's owner (setpriv, as the
// bubblewrap sandbox does inside), with a private home that owner can write (the real one is
// root's), and clears any setuid or setgid bit after each call. A project owned by root is
// refused before the first call, unless the user let the agent run as root (ALLOW_ROOT_AGENT).

import { join } from 'node:path';
import type { Logger } from '../platform/deps.js';
import type { ProcessRunner } from '../platform/process.js';
import { agentProbeRunner, type RunInside } from './agent-probe-runner.js';
import type { AgentInvocation } from '../agents/agent-adapter.js';
import { chooseHostAgentUser, findSetpriv, ralphIds, readOwner, type AgentUser, type Ids } from './agent-user.js';
import { commandInside } from './bwrap-sandbox.js';
import { createRuntimeDir, type RuntimeDir } from './runtime-dir.js';
import { stripPlantedSetuid, walkedFolders } from './strip-setuid.js';
import { createTreeChanges } from '../platform/tree-changes.js';
import { hostExecution, type Sandbox, type SandboxedInvocation } from './sandbox.js';

export interface HostSandboxOptions {
  projectDir: string;
  /** WORK_DIRS, absolute: the agent writes there too. */
  workDirs?: readonly string[];
  homeDir: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Runs the walk that clears setuid bits after a call (without it, the walk is made in ralph). */
  processRunner?: ProcessRunner;
  /** ALLOW_ROOT_AGENT: a root-owned project runs the agent as root instead of being refused. */
  allowRootAgent: boolean;
  /** ralph's ids and the project's owner (default: read from the process and the folder). */
  ids?: { ralph: Ids; owner: Ids };
}

/** Variables naming places in root's home: the agent's user could not write there. */
const HOME_PLACES = ['XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR'];

/** The invocation run as `user` through setpriv, with `home` (its private one) for HOME. */
export function wrapAsUser(invocation: AgentInvocation, env: NodeJS.ProcessEnv, as: { user: AgentUser; setpriv: string; home: string }): SandboxedInvocation {
  const inner: NodeJS.ProcessEnv = { ...env, ...invocation.env, HOME: as.home };
  for (const name of HOME_PLACES) delete inner[name];
  // The CLI's credentials were copied into the private home's .claude.
  if (inner.CLAUDE_CONFIG_DIR !== undefined) inner.CLAUDE_CONFIG_DIR = join(as.home, '.claude');
  const [cmd = as.setpriv, ...args] = commandInside([invocation.cmd, ...invocation.args], as.user, as.setpriv);
  return { cmd, args, stdin: invocation.stdin, env: inner };
}

export function createHostSandbox(options: HostSandboxOptions): Sandbox {
  const plain = hostExecution();
  let user: AgentUser | undefined;
  let setpriv = '';
  let runtime: RuntimeDir | undefined;
  const ids = options.ids ?? { ralph: ralphIds(), owner: readOwner(options.projectDir) };
  const ralphIsRoot = ids.ralph.uid === 0;
  // The walk after each call (as root) names what changed for the content snapshot too.
  const changes = ralphIsRoot && options.processRunner ? createTreeChanges() : undefined;
  const workDirs = walkedFolders(options.workDirs);
  return {
    ...plain,
    ...(changes ? { changes } : {}),
    async start() {
      user = chooseHostAgentUser(ids.ralph, ids.owner, options.projectDir, options.allowRootAgent);
      if (!user.switchTo) {
        // Asked for by the user (and shown by --doctor): said in the verbose log only.
        if (ralphIsRoot) options.logger.debug('The agent runs as root (ALLOW_ROOT_AGENT): it can change anything on this machine');
        return;
      }
      setpriv = findSetpriv();
      runtime = createRuntimeDir({ env: options.env, homeDir: options.homeDir, owner: user, reachable: true });
      options.logger.info(`No sandbox: ralph runs as root, so the agent and the gate's commands run as uid ${user.uid} (the project's owner)`);
    },
    wrap(invocation, env) {
      if (!user?.switchTo || !runtime) return plain.wrap(invocation, env);
      return wrapAsUser(invocation, env, { user, setpriv, home: runtime.home });
    },
    // The agent's processes are gone with its process group (agent-run/); as root or as the
    // project's owner, a setuid file it made would run as that user for anyone on the host.
    async afterCall() {
      if (!ralphIsRoot) return;
      const runner = options.processRunner ? { processRunner: options.processRunner } : {};
      await stripPlantedSetuid(options.projectDir, options.logger, { ...runner, env: options.env, ...(changes ? { changes } : {}) });
      for (const dir of workDirs) await stripPlantedSetuid(dir, options.logger, { ...runner, env: options.env });
    },
    async stop() {
      this.stopNow();
    },
    stopNow() {
      runtime?.remove();
      runtime = undefined;
    },
  };
}

/**
 * Without a sandbox, ralph run as root asks an agent CLI found inside the project (which the
 * agent can replace) as the project's owner, never as root; one found outside runs as before. A
 * root-owned project's CLI inside it is not asked at all (the run is refused at its start anyway,
 * unless ALLOW_ROOT_AGENT).
 */
export function hostAgentProbeRunner(options: { runner: ProcessRunner; projectDir: string; env: NodeJS.ProcessEnv }): ProcessRunner {
  if (ralphIds().uid !== 0) return options.runner;
  const owner = readOwner(options.projectDir);
  const user = owner.uid !== undefined && owner.uid !== 0 && owner.gid !== undefined ? { uid: owner.uid, gid: owner.gid, switchTo: true } : undefined;
  const runInside: RunInside | undefined = user
    ? (cmd, args) => {
        const setpriv = findSetpriv();
        return options.runner.run(setpriv, commandInside([cmd, ...args], user, setpriv).slice(1), {
          cwd: options.projectDir,
          env: options.env,
          timeoutMs: 30_000,
        });
      }
    : undefined;
  return agentProbeRunner({ runner: options.runner, projectDir: options.projectDir, env: options.env, ...(runInside ? { runInside } : {}) });
}
