// Looks an executable up on PATH without running anything (`command -v` without a shell); and
// the host tools ralph runs itself (git, tmux, docker, gh, bd, …) only where the agent cannot
// have put one: never in a PATH entry inside a folder the agent can write (the run's project and
// WORK_DIRS, the call's working folder), nor in a relative or empty entry (the current folder).

import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path';

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
  return hostToolOnPath(name, env.PATH ?? '', untrusted)?.file;
}

/** Whether `path` (after links) is inside one of `roots`. */
export function resolvesWithin(path: string, roots: readonly string[]): boolean {
  return isWithinAny(
    realOrSelf(path),
    roots.map((path) => realOrSelf(path)),
  );
}

/** Whether `path` is one of `roots` or inside one; each an absolute path with nothing to resolve (realOrSelf's). */
function isWithinAny(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep));
}

// The C library's realpath: one call that resolves every link of a path, where Node's own
// lstat's each of its folders from JavaScript.
function realOrSelf(path: string, real: (path: string) => string = realpathSync.native): string {
  try {
    return real(path);
  } catch {
    return resolve(path);
  }
}

/** The filesystem calls of a host tool's lookup (tests count them). */
export interface LookupFs {
  realpath(path: string): string;
  isExecutableFile(path: string): boolean;
}

const nodeLookupFs: LookupFs = { realpath: realpathSync.native, isExecutableFile };

/**
 * A host tool ralph runs itself and the PATH to run it with, as trustedPath and
 * findTrustedExecutable give them, with each root and PATH entry resolved once; undefined when
 * no trusted entry holds it.
 */
export function hostToolOnPath(
  name: string,
  path: string,
  untrusted: readonly string[],
  fs: LookupFs = nodeLookupFs,
): { file: string; path: string } | undefined {
  const roots = untrusted.map((root) => realOrSelf(root, fs.realpath));
  const dirs = path.split(delimiter).filter((dir) => isAbsolute(dir) && !isWithinAny(realOrSelf(dir, fs.realpath), roots));
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (fs.isExecutableFile(candidate) && !isWithinAny(realOrSelf(candidate, fs.realpath), roots)) return { file: candidate, path: dirs.join(delimiter) };
  }
  return undefined;
}

/** Folders the agent can write, as marked by the runs of this process (their projects, WORK_DIRS). */
const agentWritable = new Map<string, number>();

/** Marks `dirs` as the agent's to write for as long as a run lasts; returns the unmarking. */
export function markAgentWritable(dirs: readonly string[]): () => void {
  for (const dir of dirs) agentWritable.set(dir, (agentWritable.get(dir) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const dir of dirs) {
      const count = (agentWritable.get(dir) ?? 1) - 1;
      if (count <= 0) agentWritable.delete(dir);
      else agentWritable.set(dir, count);
    }
  };
}

/** The folders no host tool is taken from: the marked ones and `extra` (a call's working folder). */
export function untrustedRoots(extra: ReadonlyArray<string | undefined> = []): string[] {
  // A call run from `/` (a service's folder) would leave no PATH entry at all: `/` is nobody's project.
  return [...agentWritable.keys(), ...extra.filter((dir): dir is string => dir !== undefined && dir !== '' && resolve(dir) !== sep)];
}

/** A host tool ralph runs itself, found as findTrustedExecutable finds it, outside every untrusted root. */
export function findHostTool(name: string, env: NodeJS.ProcessEnv, extraUntrusted: ReadonlyArray<string | undefined> = []): string | undefined {
  return findTrustedExecutable(name, env, untrustedRoots(extraUntrusted));
}
