// Git facts for enable: is this a repository, what is origin, is it on GitHub.

import type { ProcessRunner } from '../platform/process.js';
import { loadScript } from '../platform/script.js';

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
  const git = await loadScript('git', { runner: options.runner, cwd: dir, env: options.env, timeoutMs: 10_000 });
  const inside = await git`rev-parse --is-inside-work-tree`;
  return inside.code === 0 && inside.stdout.trim() === 'true';
}

export async function detectGitInfo(dir: string, options: DetectGitOptions): Promise<GitInfo> {
  if (!(await isGitRepository(dir, options))) return { isRepo: false, isGitHub: false };
  const git = await loadScript('git', { runner: options.runner, cwd: dir, env: options.env, timeoutMs: 10_000 });
  const origin = await git`remote get-url origin`;
  const remoteUrl = origin.code === 0 ? origin.stdout.trim() || undefined : undefined;
  return { isRepo: true, remoteUrl, isGitHub: remoteUrl?.includes('github.com') ?? false };
}
