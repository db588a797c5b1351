// The views of `ralph-monitor` that keep running until a signal: the dashboard, `--web`,
// `--live` and `--unit N`. Built apart from the command's entry (scripts/bundle.mjs), so that
// `ralph-monitor --once` loads one file: this module holds its own copies of our modules and
// reports its own errors (exitCodeOf); only the exit code goes back to monitor.ts.

import type { ViewConfig } from '../../config/view-config.js';
import type { DashboardTerminal } from '../../monitor/dashboard.js';
import { IN_LAYOUT_ENV } from '../../monitor/in-layout.js';
import { systemClock } from '../../platform/clock.js';
import { exitCodeOf } from '../error-funnel.js';
import type { MonitorArgs } from './monitor-args.js';

/** How often `--unit N` and `--live` look for new output (tail -F looks every second). */
const UNIT_POLL_MS = 500;

export interface LiveMonitorOptions {
  projectDir: string;
  view: ViewConfig;
  args: MonitorArgs;
  color: boolean;
}

export function runLiveMonitor(options: LiveMonitorOptions): Promise<number> {
  return exitCodeOf(() => liveMonitor(options));
}

async function liveMonitor({ projectDir, view, args, color }: LiveMonitorOptions): Promise<number> {
  if (args.unit !== undefined) return followUnitLive(projectDir, args.unit);
  if (args.web) {
    const { serveWebView } = await import('./monitor-web.js');
    await untilStopped((signal) => serveWebView({ projectDir, view, address: args.web!, signal, write: (text) => process.stdout.write(text) }));
    return 0;
  }
  if (args.live) return followLive(projectDir);
  // The live dashboard (screen handling, resize, refresh) is loaded only here.
  const { runDashboard } = await import('../../monitor/dashboard.js');
  await untilStopped((signal, inLayout) =>
    runDashboard({
      projectDir,
      view,
      terminal: processTerminal(),
      clock: systemClock,
      intervalMs: args.intervalSeconds * 1000,
      color,
      signal,
      inLayout,
    }),
  );
  process.stdout.write('Monitor stopped.\n');
  return 0;
}

/** `--unit N`: the unit's live output until a signal (the window closing sends SIGHUP). */
async function followUnitLive(projectDir: string, position: number): Promise<number> {
  const { followUnit } = await import('../../monitor/unit-follow.js');
  await untilStopped((signal) => followUnit({ ...followSettings(projectDir, signal), position }));
  return 0;
}

/** `--live`: the loop's live output until a signal (the pane closing sends SIGHUP). */
async function followLive(projectDir: string): Promise<number> {
  const { followLiveLog } = await import('../../monitor/log-follow.js');
  await untilStopped((signal) => followLiveLog(followSettings(projectDir, signal)));
  return 0;
}

/** What both followers of live output take: the project, how often to look, where to write and how wide. */
function followSettings(projectDir: string, signal: AbortSignal) {
  return {
    projectDir,
    clock: systemClock,
    intervalMs: UNIT_POLL_MS,
    signal,
    write: (text: string) => {
      process.stdout.write(text);
    },
    columns: () => (process.stdout.isTTY ? process.stdout.columns : undefined),
  };
}

/** Runs `view` until SIGINT, SIGTERM or SIGHUP (the tmux pane or terminal went away). */
async function untilStopped(view: (signal: AbortSignal, inLayout: boolean) => Promise<void>): Promise<void> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  // In the layout of `ralph --monitor` a Ctrl+C here would take the view away for the rest of
  // the run: it is ignored (the loop pane stops the run; the session's end closes this pane).
  const inLayout = process.env[IN_LAYOUT_ENV] === '1';
  const ignore = () => {};
  for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(name, name === 'SIGINT' && inLayout ? ignore : onSignal);
  try {
    await view(stop.signal, inLayout);
  } finally {
    for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(name, onSignal).off(name, ignore);
  }
}

function processTerminal(): DashboardTerminal {
  const out = process.stdout;
  return {
    write: (text) => {
      out.write(text);
    },
    size: () => ({ columns: out.columns || 80, rows: out.rows || 24 }),
    onResize(listener) {
      // stdout emits 'resize' on SIGWINCH when it is a TTY.
      out.on('resize', listener);
      return () => out.off('resize', listener);
    },
  };
}
