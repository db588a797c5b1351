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

export async function detectGitInfo(dir: string, options: DetectGitOptions): Promise<GitInfo> {
  const git = await loadScript('git', { runner: options.runner, cwd: dir, env: options.env, timeoutMs: 10_000 });
  const inside = await git`rev-parse --is-inside-work-tree`;
  if (inside.code !== 0 || inside.stdout.trim() !== 'true') return { isRepo: false, isGitHub: false };
  const origin = await git`remote get-url origin`;
  const remoteUrl = origin.code === 0 ? origin.stdout.trim() || undefined : undefined;
  return { isRepo: true, remoteUrl, isGitHub: remoteUrl?.includes('github.com') ?? false };
}
