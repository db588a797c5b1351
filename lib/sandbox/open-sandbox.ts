// Chooses the run's sandbox from the SANDBOX_* settings. A provider that is unknown or refused
// (E2B) stops the run before anything is called: ralph never falls back to the host. A dry run
// gets a preview: the wrapped argv it would run, with nothing set up.

import type { ConfigSource } from '../config/load-config.js';
import type { RalphConfig } from '../config/schema.js';
import { readSandboxSettings, type SandboxSettings } from './sandbox-settings.js';
import { stripTerminalControls } from '../text/terminal-text.js';
import { RalphError } from '../errors.js';
import type { Deps } from '../platform/deps.js';
import { findTrustedExecutable } from '../platform/find-executable.js';
import { pinnedGitDir, readOnlyGuardedPaths } from '../containment/guarded-paths.js';
import { resolveAgentExecutable } from './agent-executable.js';
import { agentProbeRunner } from './agent-probe-runner.js';
import { runInBwrap } from './bwrap-agent-probe.js';
import type { ProcessRunner } from '../platform/process.js';
import { bwrapEnvironment, bwrapOptions, commandInside, createBwrapSandbox, systemEntries } from './bwrap-sandbox.js';
import { chooseAgentUser, giveRootOwnedTo, ownerOfRootRun, readOwner, type AgentUser } from './agent-user.js';
import { containerEnvNames, createDockerSandbox, dockerExecArgs } from './docker-sandbox.js';
import { createHostSandbox, hostAgentProbeRunner } from './host-sandbox.js';
import { SANDBOX_PROCESS_ALLOWANCE, withProcessLimit } from './process-limit.js';
import { hostExecution, type Sandbox } from './sandbox.js';

export function sandboxSettingsOf(config: RalphConfig, source?: ConfigSource): SandboxSettings {
  const result = readSandboxSettings({
    provider: config.SANDBOX_PROVIDER,
    image: config.SANDBOX_DOCKER_IMAGE,
    memory: config.SANDBOX_DOCKER_MEMORY,
    cpus: config.SANDBOX_DOCKER_CPUS,
    network: config.SANDBOX_DOCKER_NETWORK,
    binds: config.SANDBOX_BWRAP_BIND,
    passEnv: config.SANDBOX_ENV,
  });
  if (result.ok) return result.settings;
  const provider = stripTerminalControls(config.SANDBOX_PROVIDER.trim()).slice(0, 40);
  const from = source ? ` (${source.detail ?? source.kind})` : '';
  throw new RalphError('sandbox_unsupported', `SANDBOX_PROVIDER=${provider}${from}: ${result.message}`, {
    details: ['Refusing to run the agent on the host instead. Nothing was run.'],
    hint: result.hint,
  });
}

export interface OpenSandboxOptions {
  projectDir: string;
  /** WORK_DIRS, absolute: the sandbox lets the agent write there too. */
  workDirs?: readonly string[];
  ralphDir: string;
  deps: Pick<Deps, 'env' | 'homeDir' | 'processRunner' | 'logger' | 'clock'>;
  packageRoot: string;
  /** ALLOW_ROOT_AGENT: without a sandbox, a root-owned project runs the agent as root instead of being refused. */
  allowRootAgent?: boolean;
}

export function openSandbox(settings: SandboxSettings, options: OpenSandboxOptions): Sandbox {
  return givingBackToOwner(providerSandbox(settings, options), options.projectDir);
}

/**
 * ralph run as root on a project an ordinary user owns runs the agent and the gate as that
 * owner: before each of their calls, what ralph itself wrote in the project as root since (its
 * commits' and backups' objects, refs and logs, files it put back, its state) is given to the
 * owner, or the agent could not commit nor change those files.
 */
function givingBackToOwner(sandbox: Sandbox, projectDir: string): Sandbox {
  const owner = ownerOfRootRun(projectDir);
  if (!owner) return sandbox;
  const ensureRunning = sandbox.ensureRunning.bind(sandbox);
  sandbox.ensureRunning = async () => {
    giveRootOwnedTo(projectDir, owner);
    await ensureRunning();
  };
  return sandbox;
}

function providerSandbox(settings: SandboxSettings, options: OpenSandboxOptions): Sandbox {
  const { deps } = options;
  const common = { projectDir: options.projectDir, homeDir: deps.homeDir, env: deps.env, processRunner: deps.processRunner, logger: deps.logger };
  switch (settings.provider) {
    case 'none':
      return createHostSandbox({ ...common, workDirs: options.workDirs, allowRootAgent: options.allowRootAgent ?? false });
    case 'bwrap':
      return createBwrapSandbox({ ...common, binds: settings.binds, network: settings.network, passEnv: settings.passEnv, workDirs: options.workDirs });
    case 'docker':
      return createDockerSandbox({
        ...common,
        ...settings,
        workDirs: options.workDirs,
        ralphDir: options.ralphDir,
        clock: deps.clock,
        packageRoot: options.packageRoot,
      });
  }
}

/**
 * For --dry-run: wraps an invocation as the provider would, starting nothing (no container, no
 * private home): the places only a started sandbox knows are shown as <private home> and
 * <container>.
 */
export function previewSandbox(settings: SandboxSettings, options: Pick<OpenSandboxOptions, 'projectDir' | 'deps' | 'workDirs'>): Sandbox {
  const { deps, projectDir } = options;
  const host = hostExecution();
  if (settings.provider === 'none') return host;
  return {
    ...host,
    provider: settings.provider,
    wrap(invocation, env) {
      const inner = { ...env, ...invocation.env };
      if (settings.provider === 'docker') {
        const names = containerEnvNames(inner, invocation, settings.passEnv);
        return {
          cmd: findTrustedExecutable('docker', deps.env, [projectDir]) ?? 'docker',
          args: dockerExecArgs('<container>', invocation, names),
          stdin: invocation.stdin,
          env: inner,
        };
      }
      const sandboxEnv = bwrapEnvironment(env, invocation, { homeDir: deps.homeDir, passEnv: settings.passEnv });
      const agent = resolveAgentExecutable(invocation.cmd, { env: sandboxEnv, cwd: projectDir, homeDir: deps.homeDir });
      const user = previewAgentUser(projectDir);
      const layout = {
        projectDir,
        realHome: deps.homeDir,
        privateHome: '<private home>',
        system: systemEntries(),
        binds: [...settings.binds, ...agent.binds],
        network: settings.network,
        pinnedGitDir: pinnedGitDir(projectDir, { make: false }),
        readOnly: readOnlyGuardedPaths(projectDir),
        workDirs: options.workDirs,
        asRoot: user.switchTo,
      };
      const command = withProcessLimit([agent.command, ...invocation.args], '/usr/bin/prlimit', SANDBOX_PROCESS_ALLOWANCE);
      const args = [...bwrapOptions(layout), '--', ...commandInside(command, user, user.switchTo ? '/usr/bin/setpriv' : '')];
      return { cmd: findTrustedExecutable('bwrap', deps.env, [projectDir]) ?? 'bwrap', args, stdin: invocation.stdin, env: sandboxEnv };
    },
    status: () => ({ provider: settings.provider, status: 'dry run' }),
  };
}

/**
 * The runner for ralph's questions to the agents' CLIs before the run (`--version`, `--help`):
 * with a sandbox, a CLI inside the project runs only inside it (bwrap), or not at all (Docker,
 * whose CLIs are the image's); see agent-probe-runner.ts.
 */
export function agentQuestionRunner(
  settings: SandboxSettings,
  options: { projectDir: string; homeDir: string; env: NodeJS.ProcessEnv; processRunner: ProcessRunner },
): ProcessRunner {
  const { projectDir, env, processRunner } = options;
  switch (settings.provider) {
    case 'none':
      return hostAgentProbeRunner({ runner: processRunner, projectDir, env });
    case 'bwrap':
      return agentProbeRunner({
        runner: processRunner,
        projectDir,
        env,
        runInside: (cmd, args) =>
          runInBwrap(
            { projectDir, homeDir: options.homeDir, env, binds: settings.binds, network: settings.network, passEnv: settings.passEnv, processRunner },
            cmd,
            args,
          ),
      });
    case 'docker':
      return agentProbeRunner({ runner: processRunner, projectDir, env });
  }
}

/** Whom a run would run the agent as; a dry run refused by the real start shows the ordinary-user form. */
function previewAgentUser(projectDir: string): AgentUser {
  try {
    return chooseAgentUser({ uid: process.getuid?.(), gid: process.getgid?.() }, readOwner(projectDir), projectDir);
  } catch {
    return { uid: 0, gid: 0, switchTo: false };
  }
}
