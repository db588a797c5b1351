// Before a Docker-sandboxed run (and in --doctor): the docker CLI is installed, its daemon
// answers `docker info`, and the image is there; each failure says what to do.

import { CONFIG_SCHEMA } from '../config/schema.js';
import { quoteValue } from './sandbox-settings.js';

const DEFAULT_SANDBOX_IMAGE = CONFIG_SCHEMA.SANDBOX_DOCKER_IMAGE.default;
import { stripTerminalControls } from '../text/terminal-text.js';
import { RalphError } from '../errors.js';
import { findHostTool } from '../platform/find-executable.js';
import type { ProcessRunner } from '../platform/process.js';

const REFUSED = 'Refusing to run the agent on the host instead. Nothing was run.';

export function dockerFailure(message: string, details: string[] = [], hint = 'fix the Docker setup, or run without --sandbox / SANDBOX_PROVIDER'): RalphError {
  return new RalphError('sandbox_unavailable', stripTerminalControls(message).slice(0, 500), { details: [REFUSED, ...details], hint });
}

export interface DockerCheckOptions {
  image: string;
  env: NodeJS.ProcessEnv;
  projectDir: string;
  processRunner: ProcessRunner;
  packageRoot: string;
}

/** The docker CLI's path once the daemon and the image are both there; else a RalphError. */
export async function checkDocker(options: DockerCheckOptions): Promise<string> {
  const docker = findHostTool('docker', options.env, [options.projectDir]);
  if (!docker) throw dockerFailure('Sandbox docker asked for, but the Docker CLI is not installed', ['Install Docker: https://docs.docker.com/get-docker/']);
  const run = (args: string[]) => options.processRunner.run(docker, args, { env: options.env, cwd: options.projectDir, timeoutMs: 30_000 });
  const info = await run(['info', '--format', '{{.ServerVersion}}']);
  if (info.code !== 0) {
    const why = info.stderr.trim().split('\n').pop() ?? '';
    throw dockerFailure(`Docker daemon is not reachable (docker info failed${why ? `: ${why}` : ''})`, [
      'Is the Docker service running? Start it (systemctl start docker, or dockerd) and try again.',
    ]);
  }
  const image = await run(['image', 'inspect', options.image]);
  if (image.code !== 0) {
    const build =
      options.image === DEFAULT_SANDBOX_IMAGE
        ? ['Build it from the Dockerfile that ships with ralph (a few minutes, once):', '  ralph --sandbox-build']
        : [
            `Pull it (docker pull ${options.image}), or build ralph's image under that name: ralph --sandbox docker --sandbox-image ${options.image} --sandbox-build`,
          ];
    const hint = options.image === DEFAULT_SANDBOX_IMAGE ? 'run ralph --sandbox-build' : 'pull or build the image, or choose another with --sandbox-image';
    throw dockerFailure(`Sandbox image ${quoteValue(options.image)} not found`, build, hint);
  }
  return docker;
}
