// `ralph --monitor`: hands the run to a tmux session (lib/monitor/tmux-session.ts) with every
// flag forwarded to the loop pane.

import type { RalphCliOptions } from './ralph-options.js';

export async function startMonitor(options: RalphCliOptions, cwd: string): Promise<number> {
  const { launchMonitorSessionFromCli } = await import('../monitor/launch-from-cli.js');
  return launchMonitorSessionFromCli(options.argv, { cwd, keepMonitor: options.keepMonitor });
}
