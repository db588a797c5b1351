// What a CI job's environment holds that the agent (and the commands of the verification gate,
// which run the agent's code) must never get: GitHub tokens, the runner's own tokens and
// service addresses (ACTIONS_*), and the files through which a step changes the job
// (GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STATE, GITHUB_STEP_SUMMARY). ralph keeps them
// for its own gh and git calls; whatever ralph starts for the agent gets the rest.

const JOB_SECRETS = new Set([
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
  'RALPH_GITHUB_TOKEN',
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY',
]);

export function isJobSecret(name: string): boolean {
  return JOB_SECRETS.has(name) || name.startsWith('ACTIONS_');
}

/** `env` without the job's tokens and step files. */
export function withoutJobSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isJobSecret(name)));
}
