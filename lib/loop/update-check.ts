// CLAUDE_AUTO_UPDATE: look up the newest Claude Code on npm in the background and say so when
// the installed CLI is older. It never blocks, delays or fails the run, and it does not update
// anything by itself (the Bash tool ran `npm update -g` mid-run; replacing the CLI under a
// running loop is a surprise we leave to the user).

import { compareVersions } from '../agents/claude-code.js';
import type { Logger } from '../platform/deps.js';
import type { ProcessRunner } from '../platform/process.js';

export interface UpdateCheckOptions {
  installedVersion: string | undefined;
  processRunner: ProcessRunner;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  cwd: string;
  timeoutMs?: number;
}

/** Starts the check; the promise settles when it is over (the loop never waits for it). */
export function startClaudeUpdateCheck(options: UpdateCheckOptions): Promise<void> {
  const { installedVersion } = options;
  if (!installedVersion) return Promise.resolve();
  const child = options.processRunner.spawnTree('npm', ['view', '@anthropic-ai/claude-code', 'version'], {
    cwd: options.cwd,
    env: options.env,
  });
  let out = '';
  child.on('error', () => undefined);
  child.stdin?.end();
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const timer = setTimeout(() => options.processRunner.killTree(child, 'SIGKILL'), options.timeoutMs ?? 5000);
  timer.unref();
  const done = new Promise<void>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      const latest = /(\d+\.\d+\.\d+)/.exec(out)?.[1];
      if (code === 0 && latest && compareVersions(latest, installedVersion) > 0) {
        options.logger.info(`Claude Code ${latest} is available (installed: ${installedVersion}); update with: npm update -g @anthropic-ai/claude-code`);
      }
      resolve();
    });
  });
  // Never keep ralph alive for this.
  child.unref();
  (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return done;
}
