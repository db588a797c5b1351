// `ralph --sandbox-build`: builds the Docker sandbox image from the Dockerfile that ships with
// ralph (in the package root for npm and install.sh installs alike). The build context is an
// empty folder: the Dockerfile copies nothing in, so nothing of the user's disk is sent.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RalphError } from '../errors.js';
import { findHostTool } from '../platform/find-executable.js';
import type { ProcessRunner } from '../platform/process.js';

export interface BuildSandboxImageOptions {
  image: string;
  packageRoot: string;
  env: NodeJS.ProcessEnv;
  processRunner: ProcessRunner;
}

/** docker's argv for the build: tag, the packaged Dockerfile, and an empty context. */
export function buildImageArgs(image: string, dockerfile: string, context: string): string[] {
  return ['build', '--tag', image, '--file', dockerfile, context];
}

/** Runs the build with docker's own progress on the user's terminal; resolves to docker's exit code. */
export async function buildSandboxImage(options: BuildSandboxImageOptions): Promise<number> {
  const docker = findHostTool('docker', options.env, [process.cwd()]);
  if (!docker)
    throw new RalphError('sandbox_unavailable', 'ralph --sandbox-build needs the Docker CLI, which is not installed', {
      hint: 'install Docker: https://docs.docker.com/get-docker/',
    });
  const dockerfile = join(options.packageRoot, 'Dockerfile');
  if (!existsSync(dockerfile)) {
    throw new RalphError('sandbox_build', `The Dockerfile is missing from ralph's installation (${dockerfile})`, {
      hint: 'reinstall ralph (npm install -g, or ./install.sh from a checkout)',
    });
  }
  const context = mkdtempSync(join(tmpdir(), 'ralph-sandbox-build-'));
  try {
    const handle = options.processRunner.start(docker, buildImageArgs(options.image, dockerfile, context), {
      env: options.env,
      stdio: 'inherit',
      group: false,
    });
    const exit = await handle.done;
    if (exit.spawnError) throw new RalphError('sandbox_build', `docker could not start: ${exit.spawnError.message}`, { hint: 'check the Docker installation' });
    return exit.code ?? 1;
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}
