// `ralph --monitor`: hands the run to a tmux session (lib/monitor/tmux-session.ts) with every
// flag forwarded to the loop pane. Outside a project it fails here, before any tmux session
// exists: a caller without a terminal would otherwise be told "session started" and leave a
// session behind that only shows the error.

import { existsSync } from 'node:fs';
import { assertNotLegacyLayout, assertPromptExists } from '../loop/startup.js';
import { ralphPaths } from '../state/paths.js';
import type { RalphCliOptions } from './ralph-options.js';

export async function startMonitor(options: RalphCliOptions, cwd: string): Promise<number> {
  assertNotLegacyLayout(cwd);
  const paths = ralphPaths(cwd);
  if (!existsSync(paths.ralphDir)) assertPromptExists(paths, paths.prompt);
  const { launchMonitorSessionFromCli } = await import('../monitor/launch-from-cli.js');
  return launchMonitorSessionFromCli(options.argv, { cwd, keepMonitor: options.keepMonitor });
}
