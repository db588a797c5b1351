// Git facts for enable: is this a repository, what is origin, is it on GitHub.

import type { ProcessRunner } from '../platform/process.js';
import { runGitCommand } from '../platform/git-operations.js';

export interface GitInfo {
  isRepo: boolean;
  remoteUrl?: string;
  isGitHub: boolean;
}

export interface DetectGitOptions {
  runner: ProcessRunner;
  env: NodeJS.ProcessEnv;
}

/** `dir` is inside a git work tree (false too when git is not installed). */
export async function isGitRepository(dir: string, options: DetectGitOptions): Promise<boolean> {
  const inside = await runGitCommand(options.runner, ['rev-parse', '--is-inside-work-tree'], { cwd: dir, env: options.env, timeoutMs: 10_000 });
  return inside.code === 0 && inside.stdout.trim() === 'true';
}

export async function detectGitInfo(dir: string, options: DetectGitOptions): Promise<GitInfo> {
  if (!(await isGitRepository(dir, options))) return { isRepo: false, isGitHub: false };
  const origin = await runGitCommand(options.runner, ['remote', 'get-url', 'origin'], { cwd: dir, env: options.env, timeoutMs: 10_000 });
  const remoteUrl = origin.code === 0 ? origin.stdout.trim() || undefined : undefined;
  return { isRepo: true, remoteUrl, isGitHub: remoteUrl?.includes('github.com') ?? false };
}
