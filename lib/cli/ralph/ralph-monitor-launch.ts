// `ralph --monitor`: hands the run to a tmux session (lib/monitor/tmux-session.ts) with every
// flag forwarded to the loop pane. Outside a project it fails here, before any tmux session
// exists, and so it does when another ralph is already at work in the project: a caller without
// a terminal would otherwise be told "session started" and leave a session behind that only
// shows the error.

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { assertNotLegacyLayout, assertPromptExists } from '../../loop/startup.js';
import { ralphPaths } from '../../state/paths.js';
import type { RalphCliOptions } from './ralph-options.js';

export async function startMonitor(options: RalphCliOptions, cwd: string): Promise<number> {
  assertNotLegacyLayout(cwd);
  const paths = ralphPaths(cwd);
  if (!existsSync(paths.ralphDir)) assertPromptExists(paths, paths.prompt);
  // A loop already at work here: a new session would only show its loop pane refusing to start.
  const { assertNoRalphRunning } = await import('../../state/lock.js');
  assertNoRalphRunning(paths, 'watch it with ralph-monitor (or ralph --status); stop it first to start another run');
  // A parallel run gets a window per unit (lib/monitor/tmux-session.ts): count them now.
  const { countUpcomingUnits, readParallel } = await import('../../parallel/upcoming-units.js');
  const shape = { projectDir: cwd, homeDir: homedir(), env: process.env, flags: options.flags };
  const unitWindows = readParallel(shape) > 1 ? countUpcomingUnits(shape) : 0;
  const { launchMonitorSessionFromCli } = await import('../../monitor/launch-from-cli.js');
  return launchMonitorSessionFromCli(options.argv, { cwd, keepMonitor: options.keepMonitor, unitWindows });
}
