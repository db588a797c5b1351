// The environment a sandboxed process gets: an allow-list, the same for bubblewrap and Docker.
// A name not on it never reaches the agent (GH_TOKEN, AWS_*, NPM_TOKEN, a database password, the
// API keys of the agents that are not running). What passes: what programs need to run (PATH,
// locale, terminal, proxies), a git identity, ralph's own mark, the running agent's credentials
// and settings (its adapter names them), and the names the user adds in SANDBOX_ENV. Pure.

/** A name, or a prefix ending in `*` (`LC_*`). */
export type EnvPattern = string;

/** What every sandboxed process may get from ralph's environment. */
export const BASE_SANDBOX_ENV: readonly EnvPattern[] = [
  'PATH',
  'HOME',
  'TMPDIR',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TZ',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'COLUMNS',
  'LINES',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'RALPH_RUN_ID',
];

/**
 * Names whose value is a path of the host: meaningless in a container, which has its own PATH,
 * home and temp (Docker leaves them out; bubblewrap shows the host's paths at their place).
 */
export const HOST_PATH_ENV: readonly string[] = [
  'PATH',
  'HOME',
  'TMPDIR',
  'SHELL',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'CLAUDE_CONFIG_DIR',
  'CODEX_HOME',
];

export function matchesEnvPattern(name: string, pattern: EnvPattern): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

/** The patterns a sandboxed process gets: the base list, the running agent's, the user's SANDBOX_ENV. */
export function sandboxEnvPatterns(agentPatterns: readonly EnvPattern[] = [], userNames: readonly string[] = []): EnvPattern[] {
  return [...new Set([...BASE_SANDBOX_ENV, ...agentPatterns, ...userNames])];
}

/** The variables of `env` the patterns allow (unset ones left out). */
export function filterSandboxEnv(env: Readonly<Record<string, string | undefined>>, patterns: readonly EnvPattern[]): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && patterns.some((pattern) => matchesEnvPattern(name, pattern))) kept[name] = value;
  }
  return kept;
}

/** For `ralph --doctor`: the names that would pass now, the patterns, and the names held back. */
export function describeSandboxEnv(
  env: Readonly<Record<string, string | undefined>>,
  patterns: readonly EnvPattern[],
): { passed: string[]; withheld: string[] } {
  const passed = Object.keys(filterSandboxEnv(env, patterns)).sort();
  const withheld = Object.keys(env)
    .filter((name) => env[name] !== undefined && !passed.includes(name))
    .sort();
  return { passed, withheld };
}
