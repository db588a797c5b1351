// CLAUDE_AUTO_UPDATE: look up the newest Claude Code on npm in the background and say so when
// the installed CLI is older. It never blocks, delays or fails the run, and it does not update
// anything by itself (the Bash tool ran `npm update -g` mid-run; replacing the CLI under a
// running loop is a surprise we leave to the user).

import { compareVersions, parseVersion } from '../text/version.js';
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
  // In the background: never keep ralph alive for this.
  return options.processRunner
    .run('npm', ['view', '@anthropic-ai/claude-code', 'version'], {
      cwd: options.cwd,
      env: options.env,
      timeoutMs: options.timeoutMs ?? 5000,
      background: true,
    })
    .then((result) => {
      const latest = parseVersion(result.stdout);
      if (result.code === 0 && latest && compareVersions(latest, installedVersion) > 0) {
        options.logger.info(`Claude Code ${latest} is available (installed: ${installedVersion}); update with: npm update -g @anthropic-ai/claude-code`);
      }
    });
}
