// Looks an executable up on PATH without running anything (`command -v` without a shell).

import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export function findExecutable(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export type HasCommand = (name: string) => boolean;

export function hasCommandOnPath(env: NodeJS.ProcessEnv): HasCommand {
  return (name) => findExecutable(name, env) !== undefined;
}
