// The agents a run calls, found before its first loop: the primary's command (and, for Claude,
// its version, checked against CLAUDE_MIN_VERSION), the fallbacks (FALLBACK_AGENTS; one that is
// unknown or missing is left out with a warning), and whether Claude's CLI takes a cap per call.
// Under a sandbox a CLI inside the project is asked inside it, never on the host.

import type { LoadConfigResult } from '../config/load-config.js';
import type { RalphConfig } from '../config/schema.js';
import { RalphError } from '../errors.js';
import type { Deps } from '../platform/deps.js';
import { PACKAGE_ROOT } from '../platform/package-root.js';
import { formatCliName, type AgentAdapter } from '../agents/agent-adapter.js';
import { agentCommandOf } from '../agents/choose-agent.js';
import { findAgent } from '../agents/registry.js';
import { cliHasFlag } from '../agents/cli-flags.js';
import { agentQuestionRunner, sandboxSettingsOf } from '../sandbox/open-sandbox.js';
import type { AgentSlot } from '../agent-run/agent-choice.js';
import { findAgentCommand, isVersionTooOld, type AgentCommand } from './startup.js';
import { startClaudeUpdateCheck } from './update-check.js';

/** What finding the agents needs of the run's options. */
export interface AgentSetupOptions {
  projectDir: string;
  deps: Deps;
}

/**
 * With a cost budget, whether Claude's CLI takes a cap per call (`--max-budget-usd`, from its
 * `--help`, asked once per version): then each call gets what is left of the run's budget.
 */
export async function withBudgetFlag(options: AgentSetupOptions, config: RalphConfig, slot: AgentSlot, found: AgentCommand): Promise<AgentSlot> {
  // In Docker the CLI is the image's: its version is not asked on the host.
  if (slot.adapter.name !== 'claude' || !(config.MAX_COST_USD > 0) || !('version' in found)) return slot;
  const { deps } = options;
  const flag = '--max-budget-usd';
  const runner = agentQuestionRunner(sandboxSettingsOf(config), {
    projectDir: options.projectDir,
    homeDir: deps.homeDir,
    env: deps.env,
    processRunner: deps.processRunner,
  });
  const accepts = await cliHasFlag({
    agent: slot.adapter.name,
    command: slot.command,
    version: found.version,
    flag,
    env: deps.env,
    homeDir: deps.homeDir,
    cwd: options.projectDir,
    runner,
  });
  if (accepts) deps.logger.info(`Each Claude call is capped at what is left of --max-cost (${flag})`);
  else if (accepts === false)
    deps.logger.warn(`This Claude CLI${found.version ? ` (${found.version})` : ''} has no ${flag}: one call can overshoot --max-cost before ralph stops`);
  else deps.logger.warn(`Could not ask ${slot.command} --help whether it takes ${flag}: calls are not capped one by one`);
  return accepts ? { ...slot, acceptsMaxBudget: true } : slot;
}

export async function resolveAgentCommand(options: AgentSetupOptions, loaded: LoadConfigResult, agent: AgentAdapter): Promise<AgentCommand> {
  const { config, sources } = loaded;
  const { deps } = options;
  const configured = agentCommandOf(config, agent);
  try {
    const found = await findAgentCommand({
      agent,
      configured,
      configuredFromDefault: sources[agent.commandKey].kind === 'default',
      env: deps.env,
      projectDir: options.projectDir,
      ralphRoot: PACKAGE_ROOT,
      // Under a sandbox, a CLI inside the project is asked inside it, never on the host.
      processRunner: agentQuestionRunner(sandboxSettingsOf(config, sources.SANDBOX_PROVIDER), {
        projectDir: options.projectDir,
        homeDir: deps.homeDir,
        env: deps.env,
        processRunner: deps.processRunner,
      }),
    });
    if (agent.name !== 'claude') {
      deps.logger.info(`${formatCliName(agent.label)}${found.version ? ` ${found.version}` : ''} (${found.command})`);
      return found;
    }
    if (found.version === undefined) {
      deps.logger.warn('Could not detect the Claude Code CLI version; assuming it is compatible');
    } else if (isVersionTooOld(found.version, config.CLAUDE_MIN_VERSION)) {
      deps.logger.warn(`Claude CLI version ${found.version} is older than ${config.CLAUDE_MIN_VERSION}; some features may not work`);
    } else {
      deps.logger.info(`Claude CLI version ${found.version} (>= ${config.CLAUDE_MIN_VERSION})`);
    }
    if (config.CLAUDE_AUTO_UPDATE && !config.DRY_RUN) {
      void startClaudeUpdateCheck({
        installedVersion: found.version,
        processRunner: deps.processRunner,
        logger: deps.logger,
        env: deps.env,
        cwd: options.projectDir,
      });
    }
    return found;
  } catch (error) {
    // A dry run shows what would run even where the CLI is not installed.
    if (config.DRY_RUN && error instanceof RalphError) {
      deps.logger.warn(`${error.message} (dry run: continuing)`);
      return { command: configured, version: undefined };
    }
    throw error;
  }
}

/**
 * FALLBACK_AGENTS (`--fallback-agent`), each with its command found now: one that is unknown or
 * not installed is left out with a warning, so a run never stops on a fallback it may not need.
 */
export async function resolveFallbackAgents(options: AgentSetupOptions, loaded: LoadConfigResult, primary: AgentAdapter): Promise<AgentSlot[]> {
  const { logger } = options.deps;
  const slots: AgentSlot[] = [];
  for (const name of new Set(loaded.config.FALLBACK_AGENTS)) {
    const adapter = findAgent(name);
    if (!adapter) {
      logger.warn(`FALLBACK_AGENTS: ralph knows no agent "${name}"; it is left out`);
      continue;
    }
    if (adapter.name === primary.name || slots.some((s) => s.adapter.name === adapter.name)) continue;
    // In Docker the agents' CLIs live in the image, not on the host: none is asked here.
    if (sandboxSettingsOf(loaded.config, loaded.sources.SANDBOX_PROVIDER).provider === 'docker') {
      slots.push({ adapter, command: agentCommandOf(loaded.config, adapter) });
      continue;
    }
    try {
      const found = await resolveAgentCommand(options, loaded, adapter);
      slots.push(await withBudgetFlag(options, loaded.config, { adapter, command: found.command }, found));
    } catch (error) {
      if (!(error instanceof RalphError)) throw error;
      logger.warn(`Fallback agent ${adapter.label} is left out: ${error.message} (${error.hint ?? adapter.installHint})`);
    }
  }
  return slots;
}
