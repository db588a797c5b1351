// Wires `ralph --monitor` (lib/cli/ralph/ralph-monitor-launch.ts) to launchMonitorSession with the
// real process, terminal and the installed bin/ shims. RALPH_TMUX_SOCKET (a tmux -L name) puts
// the session on a private tmux server, which end-to-end tests use.

import { fileURLToPath } from 'node:url';
import { systemClock } from '../platform/clock.js';
import { createLogger } from '../platform/logger.js';
import { nodeProcessRunner } from '../platform/process.js';
import { launchMonitorSession } from './tmux-session.js';

export interface MonitorLaunchOptions {
  cwd: string;
  keepMonitor: boolean;
  /** `unit-<n>` windows to open: the units of a parallel run (0: a single loop). */
  unitWindows: number;
}

export async function launchMonitorSessionFromCli(argv: string[], options: MonitorLaunchOptions): Promise<number> {
  const env = process.env;
  const bin = (name: string) => fileURLToPath(new URL(`../../bin/${name}`, import.meta.url));
  const logger = createLogger({
    stderr: process.stderr,
    env,
    clock: systemClock,
    verbose: argv.includes('--verbose') || argv.includes('-v'),
  });
  const { exitCode } = await launchMonitorSession({
    projectDir: options.cwd,
    forwardedArgv: argv,
    env,
    ralphCommand: [process.execPath, bin('ralph')],
    monitorCommand: [process.execPath, bin('ralph-monitor')],
    keepMonitor: options.keepMonitor,
    unitWindows: options.unitWindows,
    tmuxSocket: env.RALPH_TMUX_SOCKET || undefined,
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    insideTmux: Boolean(env.TMUX),
    processRunner: nodeProcessRunner,
    logger,
    clock: systemClock,
  });
  return exitCode;
}
