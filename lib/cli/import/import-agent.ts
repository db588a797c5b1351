// ralph-import's agent, run as a loop with no sandbox runs it: never as root. Run as root,
// ralph-import runs it as the owner of the folder it imports in (the project it creates there is
// given to that owner first); a folder root owns is refused before any call, unless the user let
// the agent run as root (--allow-root-agent, ALLOW_ROOT_AGENT). Found, checked and started once,
// when first needed (a GitHub dry run never calls the agent); stopped on every exit.

import { agentCommandOf, agentModelOf } from '../../agents/choose-agent.js';
import type { AgentAdapter } from '../../agents/agent-adapter.js';
import type { OneShotAgent } from '../../agent-run/one-off-call.js';
import type { RalphConfig } from '../../config/schema.js';
import { findAgentCommand } from '../../loop/startup.js';
import type { Logger } from '../../platform/deps.js';
import type { ProcessRunner } from '../../platform/process.js';
import { chooseHostAgentUser, ralphIds, readOwner } from '../../sandbox/agent-user.js';
import { createHostSandbox, hostAgentProbeRunner } from '../../sandbox/host-sandbox.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { PACKAGE_ROOT } from '../package-info.js';

export interface ImportAgentOptions {
  adapter: AgentAdapter;
  config: RalphConfig;
  /** The agent command came from the default (not a setting): node_modules/.bin is looked in too. */
  commandFromDefault: boolean;
  /** The folder the import works in (the new project's parent). */
  workDir: string;
  homeDir: string;
  env: NodeJS.ProcessEnv;
  runner: ProcessRunner;
  logger: Logger;
  /** Aborted by a stop signal: a running call is stopped. */
  stop: AbortSignal;
}

export interface ImportAgent {
  /** The agent, ready to call; throws a RalphError when it cannot run (not found, only root left). */
  find(): Promise<OneShotAgent>;
  /** ralph is root and the agent runs as this user: what ralph writes for it is given to them. */
  handTo(): { uid: number; gid: number } | undefined;
  stop(): Promise<void>;
  /** The last resort of a second stop signal: the private home removed at once. */
  stopNow(): void;
}

export function createImportAgent(options: ImportAgentOptions): ImportAgent {
  const { adapter, config, workDir, env } = options;
  const ids = { ralph: ralphIds(), owner: readOwner(workDir) };
  let sandbox: Sandbox | undefined;
  let found: Promise<OneShotAgent> | undefined;
  let handTo: { uid: number; gid: number } | undefined;
  const resolve = async (): Promise<OneShotAgent> => {
    const user = chooseHostAgentUser(ids.ralph, ids.owner, workDir, config.ALLOW_ROOT_AGENT);
    const command = await findAgentCommand({
      agent: adapter,
      configured: agentCommandOf(config, adapter),
      configuredFromDefault: options.commandFromDefault,
      env,
      projectDir: workDir,
      ralphRoot: PACKAGE_ROOT,
      // A CLI inside the folder is asked its version as the agent's user, never as root.
      processRunner: hostAgentProbeRunner({ runner: options.runner, projectDir: workDir, env }),
    });
    sandbox = createHostSandbox({
      projectDir: workDir,
      homeDir: options.homeDir,
      env,
      processRunner: options.runner,
      logger: options.logger,
      allowRootAgent: config.ALLOW_ROOT_AGENT,
      ids,
    });
    await sandbox.start();
    if (user.switchTo) handTo = { uid: user.uid, gid: user.gid };
    return { adapter, command: command.command, model: agentModelOf(config, adapter), sandbox, stop: options.stop };
  };
  return {
    find: () => (found ??= resolve()),
    handTo: () => handTo,
    stop: async () => {
      await sandbox?.stop();
    },
    stopNow: () => sandbox?.stopNow(),
  };
}
