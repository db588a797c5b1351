// `ralph-monitor`: the live dashboard for the project in the current directory, computed from
// the `.ralph/` state files only (so it also shows state written by the Bash tool).
// `--once` prints one frame and exits, for scripts; `--interval` sets the refresh in seconds;
// `--unit N` follows the live output of a `ralph --parallel` run's Nth unit (lib/monitor/unit-follow.ts),
// `--live` the loop's own (lib/monitor/log-follow.ts).

import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { loadViewConfig } from '../../config/view-config.js';
import { RalphError } from '../../errors.js';
import { systemClock } from '../../platform/clock.js';
import { shouldUseColor } from '../../monitor/ansi.js';
import type { DashboardTerminal } from '../../monitor/dashboard.js';
import { renderFrame } from '../../monitor/render.js';
import { IN_LAYOUT_ENV } from '../../monitor/in-layout.js';
import { loadSnapshot } from '../../monitor/snapshot-loader.js';
import { runMain } from '../error-funnel.js';
import { formatVersionLine, wantsVersion } from '../package-info.js';
import { parseMonitorArgs, renderMonitorHelp } from './monitor-args.js';

/** How often `--unit N` and `--live` look for new output (tail -F looks every second). */
const UNIT_POLL_MS = 500;

export async function mainMonitor(argv: string[]): Promise<number> {
  if (wantsVersion(argv)) {
    process.stdout.write(`${formatVersionLine('ralph-monitor')}\n`);
    return 0;
  }
  const args = parseMonitorArgs(argv);
  if (args === 'help') {
    process.stdout.write(renderMonitorHelp());
    return 0;
  }
  const projectDir = process.cwd();
  const color = shouldUseColor(Boolean(process.stdout.isTTY), process.env);
  // The plan is read with the loop's settings (FIX_PLAN_FILE, OPTIONAL_SECTIONS), not defaults.
  const view = loadViewConfig({ projectDir, homeDir: homedir(), env: process.env });
  if (!statSync(view.paths.ralphDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new RalphError('no_project', `No Ralph project here: ${projectDir} has no .ralph/ directory`, {
      hint: 'run ralph-monitor in a project enabled with ralph-enable (or created with ralph-setup)',
    });
  }
  if (args.unit !== undefined) return followUnitLive(projectDir, args.unit);
  if (args.web) {
    const { serveWebView } = await import('./monitor-web.js');
    await untilStopped((signal) => serveWebView({ projectDir, view, address: args.web!, signal, write: (text) => process.stdout.write(text) }));
    return 0;
  }
  if (args.live) return followLive(projectDir);
  if (args.once) {
    const columns = process.stdout.columns || Number(process.env.COLUMNS) || 80;
    const lines = renderFrame(await loadSnapshot(projectDir, view, systemClock.now()), {
      columns,
      color,
      now: systemClock.now(),
      once: true,
    });
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  }

  // The live dashboard (screen handling, resize, refresh) is loaded only here, not for `--once`.
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
  await untilStopped((signal) =>
    followUnit({
      projectDir,
      position,
      clock: systemClock,
      intervalMs: UNIT_POLL_MS,
      signal,
      write: (text) => {
        process.stdout.write(text);
      },
      columns: () => (process.stdout.isTTY ? process.stdout.columns : undefined),
    }),
  );
  return 0;
}

/** `--live`: the loop's live output until a signal (the pane closing sends SIGHUP). */
async function followLive(projectDir: string): Promise<number> {
  const { followLiveLog } = await import('../../monitor/log-follow.js');
  await untilStopped((signal) =>
    followLiveLog({
      projectDir,
      clock: systemClock,
      intervalMs: UNIT_POLL_MS,
      signal,
      write: (text) => {
        process.stdout.write(text);
      },
      columns: () => (process.stdout.isTTY ? process.stdout.columns : undefined),
    }),
  );
  return 0;
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

await runMain(mainMonitor);
