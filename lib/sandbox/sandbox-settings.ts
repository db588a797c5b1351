// Which sandbox the agent runs in, and its settings, from the SANDBOX_* keys (flags, env or
// .ralphrc). Pure: the same validation serves the flags, the run's startup and --doctor, and a
// value it refuses stops the run: ralph never falls back to running the agent on the host.

import { stripTerminalControls } from '../text/terminal-text.js';

export type SandboxNetwork = 'none' | 'bridge' | 'host';

export type SandboxSettings =
  | { provider: 'none' }
  | { provider: 'bwrap'; network: SandboxNetwork; binds: string[]; passEnv: string[] }
  | { provider: 'docker'; image: string; memory: string; cpus: string; network: SandboxNetwork; passEnv: string[] };

export type SandboxProvider = SandboxSettings['provider'];

/** The providers `--sandbox` and SANDBOX_PROVIDER accept. */
export const SANDBOX_PROVIDERS = ['docker', 'bwrap'] as const;

export interface SandboxValues {
  provider: string;
  image: string;
  memory: string;
  cpus: string;
  network: string;
  binds: readonly string[];
  /** SANDBOX_ENV: more variables passed in, names or PREFIX*. */
  passEnv?: readonly string[];
}

export type SandboxSettingsResult = { ok: true; settings: SandboxSettings } | { ok: false; message: string; hint: string };

/** Quoted for a message: the value may come from a file the agent can write. */
export function quoteValue(value: string): string {
  return `'${stripTerminalControls(value).slice(0, 80)}'`;
}

/** Why a provider name is refused (undefined: accepted; '' means no sandbox). */
export function providerProblem(provider: string): { message: string; hint: string } | undefined {
  if (provider === '' || (SANDBOX_PROVIDERS as readonly string[]).includes(provider)) return undefined;
  if (provider === 'e2b') {
    return {
      message: 'the E2B cloud sandbox is not supported by this version of ralph',
      hint: 'use --sandbox docker or --sandbox bwrap, or remove SANDBOX_PROVIDER to run on the host',
    };
  }
  return {
    message: `unknown sandbox provider ${quoteValue(provider)} (supported: ${SANDBOX_PROVIDERS.join(', ')})`,
    hint: 'use --sandbox docker or --sandbox bwrap, or remove SANDBOX_PROVIDER to run on the host',
  };
}

/** Why one Docker or network setting is refused, as the Bash tool's validate_sandbox_config says it. */
export function sandboxValueProblem(field: 'image' | 'memory' | 'cpus' | 'network', value: string): string | undefined {
  switch (field) {
    case 'image':
      return /^[a-zA-Z0-9][a-zA-Z0-9._/:@-]*$/.test(value) ? undefined : `invalid sandbox image ${quoteValue(value)}`;
    case 'memory':
      return /^[0-9]+[bkmgBKMG]?$/.test(value) ? undefined : `invalid sandbox memory limit ${quoteValue(value)} (expected e.g. 4g, 512m)`;
    case 'cpus':
      return /^[0-9]+(\.[0-9]+)?$/.test(value) ? undefined : `invalid sandbox cpus limit ${quoteValue(value)} (expected e.g. 2 or 1.5)`;
    case 'network':
      return ['none', 'bridge', 'host'].includes(value) ? undefined : `invalid sandbox network mode ${quoteValue(value)} (expected: none, bridge, or host)`;
  }
}

export function readSandboxSettings(values: SandboxValues): SandboxSettingsResult {
  const provider = values.provider.trim();
  const refused = providerProblem(provider);
  if (refused) return { ok: false, ...refused };
  if (provider === '') return { ok: true, settings: { provider: 'none' } };
  const hint = 'fix the SANDBOX_* setting (flag, environment or .ralphrc)';
  const network = sandboxValueProblem('network', values.network);
  if (network) return { ok: false, message: network, hint };
  const passEnv = [...(values.passEnv ?? [])];
  const badName = passEnv.find((name) => !/^[A-Za-z_][A-Za-z0-9_]*\*?$/.test(name));
  if (badName !== undefined) return { ok: false, message: `SANDBOX_ENV takes variable names or PREFIX*, got ${quoteValue(badName)}`, hint };
  if (provider === 'bwrap') {
    const relative = values.binds.find((path) => !path.startsWith('/'));
    if (relative !== undefined) return { ok: false, message: `SANDBOX_BWRAP_BIND paths must be absolute, got ${quoteValue(relative)}`, hint };
    return { ok: true, settings: { provider: 'bwrap', network: values.network as SandboxNetwork, binds: [...values.binds], passEnv } };
  }
  for (const field of ['image', 'memory', 'cpus'] as const) {
    const problem = sandboxValueProblem(field, values[field]);
    if (problem) return { ok: false, message: problem, hint };
  }
  return {
    ok: true,
    settings: { provider: 'docker', image: values.image, memory: values.memory, cpus: values.cpus, network: values.network as SandboxNetwork, passEnv },
  };
}
