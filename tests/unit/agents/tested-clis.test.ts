// The sandbox image installs what ralph was tested with: the Dockerfile's base image is an exact
// Node LTS release, its npm install names each tested agent CLI at its exact version and nothing
// unpinned, and the fleet's workflow installs the same versions on the runner.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TESTED_AGENT_CLIS } from '../../../lib/agents/tested-clis.js';
import { FLEET_AGENTS } from '../../../lib/fleet/fleet-agents.js';

const DOCKERFILE = readFileSync(new URL('../../../Dockerfile', import.meta.url), 'utf8');

describe('the pinned agent CLIs', () => {
  it('the Dockerfile installs exactly the tested versions, nothing unpinned', () => {
    const install = /RUN npm install -g ([^\\\n]+)/.exec(DOCKERFILE);
    expect(install).not.toBeNull();
    expect(install![1]!.trim().split(/\s+/).sort()).toEqual(Object.values(TESTED_AGENT_CLIS).sort());
    for (const spec of Object.values(TESTED_AGENT_CLIS)) expect(spec).toMatch(/^(@[\w-]+\/)?[\w-]+@\d+\.\d+\.\d+$/);
  });

  it('the base image is an exact release of a Node LTS line in support, on a named Debian release', () => {
    const base = /^ARG NODE_IMAGE=node:(\d+)\.\d+\.\d+-(bookworm|trixie)-slim$/m.exec(DOCKERFILE);
    expect(base).not.toBeNull();
    expect(['22', '24']).toContain(base![1]);
    expect(DOCKERFILE).toMatch(/^FROM \$\{NODE_IMAGE\}$/m);
    expect(DOCKERFILE).toMatch(/^ARG DEBIAN_SNAPSHOT=\d{8}T\d{6}Z$/m);
  });

  it("the fleet's agents are the tested versions", () => {
    for (const agent of FLEET_AGENTS) expect(agent.npmPackage).toBe(TESTED_AGENT_CLIS[agent.name]);
  });
});
