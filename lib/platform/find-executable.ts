// Looks an executable up on PATH without running anything (`command -v` without a shell).

import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, resolve, sep } from 'node:path';

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

/**
 * findExecutable, for a program ralph runs on the host: never from a folder the agent can write
 * (`untrusted`: the project) nor a relative PATH entry (the current folder), and never a file
 * that resolves into one.
 */
export function findTrustedExecutable(name: string, env: NodeJS.ProcessEnv, untrusted: readonly string[]): string | undefined {
  const roots = untrusted.map(realOrSelf);
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (!isExecutableFile(candidate)) continue;
    if (isWithinAny(realOrSelf(candidate), roots) || isWithinAny(realOrSelf(dir), roots)) continue;
    return candidate;
  }
  return undefined;
}

/** Whether `path` (after links) is inside one of `roots`. */
export function resolvesWithin(path: string, roots: readonly string[]): boolean {
  return isWithinAny(realOrSelf(path), roots.map(realOrSelf));
}

function isWithinAny(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = relative(root, path);
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
  });
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
