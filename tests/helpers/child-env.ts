// What every process the suite starts inherits. The tests start some 2,000 Node processes
// (ralph, the fake agents, gh and bd, the vitest workers) and none of them opens a TLS
// connection; yet NODE_EXTRA_CA_CERTS, when the machine sets it, makes each Node start read and
// parse that certificate bundle first (≈50 ms a start for a 150-certificate bundle, twice a bare
// `node -e 0`). The vitest configs drop it before any worker is forked.

export function dropStartupOnlyEnv(env: NodeJS.ProcessEnv = process.env): void {
  delete env.NODE_EXTRA_CA_CERTS;
}
