// `ralph-monitor`: the live dashboard for the project in the current directory, computed from
// the `.ralph/` state files only (so it also shows state written by the Bash tool).
// `--once` prints one frame and exits, for scripts; `--interval` sets the refresh in seconds;
// `--unit N` follows the live output of a `ralph --parallel` run's Nth unit (lib/monitor/unit-follow.ts),
// `--live` the loop's own (lib/monitor/log-follow.ts). Everything but `--once` runs from
// monitor-live.ts, built apart, so that `--once` loads this file alone.

import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { loadViewConfig } from '../../config/view-config.js';
import { RalphError } from '../../errors.js';
import { systemClock } from '../../platform/clock.js';
import { shouldUseColor } from '../../monitor/ansi.js';
import { renderFrame } from '../../monitor/render.js';
import { loadSnapshot } from '../../monitor/snapshot-loader.js';
import { runMain } from '../error-funnel.js';
import { formatVersionLine, wantsVersion } from '../package-info.js';
import { parseMonitorArgs, renderMonitorHelp } from './monitor-args.js';
import { notAProjectHint } from '../../project/nested-project.js';

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
      hint: notAProjectHint(projectDir, 'run ralph-monitor in a project enabled with ralph-enable (or created with ralph-setup)'),
    });
  }
  if (!args.once) return (await import('./monitor-live.js')).runLiveMonitor({ projectDir, view, args, color });
  const columns = process.stdout.columns || Number(process.env.COLUMNS) || 80;
  const lines = renderFrame(await loadSnapshot(projectDir, view, systemClock.now()), { columns, color, now: systemClock.now(), once: true });
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

await runMain(mainMonitor);
