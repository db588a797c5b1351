// Chooses the run's sandbox from the SANDBOX_* settings. A provider that is unknown or refused
// (E2B) stops the run before anything is called: ralph never falls back to the host.

import type { ConfigSource } from '../config/load-config.js';
import type { RalphConfig } from '../config/schema.js';
import { readSandboxSettings, type SandboxSettings } from '../core/sandbox-settings.js';
import { stripTerminalControls } from '../core/terminal-text.js';
import { RalphError } from '../errors.js';
import type { Deps } from '../platform/deps.js';
import { createBwrapSandbox } from './bwrap-sandbox.js';
import { createDockerSandbox } from './docker-sandbox.js';
import { hostExecution, type Sandbox } from './sandbox.js';

export function sandboxSettingsOf(config: RalphConfig, source?: ConfigSource): SandboxSettings {
  const result = readSandboxSettings({
    provider: config.SANDBOX_PROVIDER,
    image: config.SANDBOX_DOCKER_IMAGE,
    memory: config.SANDBOX_DOCKER_MEMORY,
    cpus: config.SANDBOX_DOCKER_CPUS,
    network: config.SANDBOX_DOCKER_NETWORK,
    binds: config.SANDBOX_BWRAP_BIND,
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
  ralphDir: string;
  deps: Pick<Deps, 'env' | 'homeDir' | 'processRunner' | 'logger' | 'clock'>;
  packageRoot: string;
}

export function openSandbox(settings: SandboxSettings, options: OpenSandboxOptions): Sandbox {
  const { deps } = options;
  const common = { projectDir: options.projectDir, homeDir: deps.homeDir, env: deps.env, processRunner: deps.processRunner, logger: deps.logger };
  switch (settings.provider) {
    case 'none':
      return hostExecution();
    case 'bwrap':
      return createBwrapSandbox({ ...common, binds: settings.binds, network: settings.network });
    case 'docker':
      return createDockerSandbox({ ...common, ...settings, ralphDir: options.ralphDir, clock: deps.clock, packageRoot: options.packageRoot });
  }
}
