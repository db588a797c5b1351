// Looks an executable up on PATH without running anything (`command -v` without a shell).

import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export function findExecutable(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** An existing regular file we may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export type HasCommand = (name: string) => boolean;

export function hasCommandOnPath(env: NodeJS.ProcessEnv): HasCommand {
  return (name) => findExecutable(name, env) !== undefined;
}
