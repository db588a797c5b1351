// What every process the suite starts inherits. The tests start some 2,000 Node processes
// (ralph, the fake agents, gh and bd, the vitest workers) and none of them opens a TLS
// connection; yet NODE_EXTRA_CA_CERTS, when the machine sets it, makes each Node start read and
// parse that certificate bundle first (≈50 ms a start for a 150-certificate bundle, twice a bare
// `node -e 0`). The vitest configs drop it before any worker is forked.

export function dropStartupOnlyEnv(env: NodeJS.ProcessEnv = process.env): void {
  delete env.NODE_EXTRA_CA_CERTS;
}

/**
 * The suite runs as root in CI, on temp projects root owns, with fake agents and no sandbox:
 * ralph would refuse to run an agent as root there. Every ralph the suite starts is told this
 * machine is a throw-away one (ALLOW_ROOT_AGENT); the tests of the refusal and of the switch to
 * the project's owner clear it (tests/system/root-agent.test.ts, tests/system/import-as-root.test.ts,
 * tests/unit/sandbox/host-sandbox.test.ts).
 */
export function allowRootAgent(env: NodeJS.ProcessEnv = process.env): void {
  env.ALLOW_ROOT_AGENT ??= 'true';
}
