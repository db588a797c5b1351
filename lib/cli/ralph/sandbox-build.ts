// `ralph --sandbox-build`: the one command that makes the Docker sandbox's image, for every
// install method. The image name comes from the configuration (--sandbox-image, env, .ralphrc).

import { homedir } from 'node:os';
import { loadConfig } from '../../config/load-config.js';
import { quoteValue } from '../../sandbox/sandbox-settings.js';
import { RalphError } from '../../errors.js';
import { nodeProcessRunner } from '../../platform/process.js';
import { buildSandboxImage as runDockerBuild } from '../../sandbox/build-image.js';
import { PACKAGE_ROOT } from '../package-info.js';

export interface SandboxBuildOptions {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  flags: Record<string, string | number | boolean>;
  write: (text: string) => void;
}

export async function sandboxBuildCommand(options: SandboxBuildOptions): Promise<number> {
  const { config } = loadConfig({ projectDir: options.projectDir, homeDir: options.env.HOME || homedir(), env: options.env, flags: options.flags });
  const image = config.SANDBOX_DOCKER_IMAGE;
  options.write(`Building the sandbox image ${quoteValue(image)} from ralph's Dockerfile (this takes a few minutes the first time)…\n`);
  const code = await runDockerBuild({ image, packageRoot: PACKAGE_ROOT, env: options.env, processRunner: nodeProcessRunner });
  if (code !== 0)
    throw new RalphError('sandbox_build', `docker build failed (exit ${code}); its output is above`, {
      hint: 'check that the Docker daemon runs and can reach the network, then run ralph --sandbox-build again',
    });
  options.write(`Sandbox image ${quoteValue(image)} is ready: ralph --sandbox docker\n`);
  return 0;
}
