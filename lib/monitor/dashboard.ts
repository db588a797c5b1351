// The live dashboard loop: alternate screen, cursor hidden, a frame every interval (sooner on
// a resize), written as a patch of the lines that changed, and the terminal restored however
// the loop ends. Clock, terminal and snapshot loading are injected so tests drive it directly.

import type { ViewConfig } from '../config/view-config.js';
import type { Clock } from '../platform/clock.js';
import { buildFramePatch, CLEAR_SCREEN, ENTER_SCREEN, LEAVE_SCREEN } from './frame-patch.js';
import { renderFrame } from './render.js';
import { createSnapshotLoader, type SnapshotLoader } from './snapshot-loader.js';

export interface DashboardTerminal {
  write(text: string): void;
  size(): { columns: number; rows: number };
  /** Calls `listener` on every resize (SIGWINCH); returns the unsubscribe function. */
  onResize(listener: () => void): () => void;
}

export interface DashboardOptions {
  projectDir: string;
  terminal: DashboardTerminal;
  clock: Clock;
  intervalMs: number;
  color: boolean;
  /** Stops the loop (SIGINT/SIGTERM in the CLI); the terminal is restored before returning. */
  signal: AbortSignal;
  loader?: SnapshotLoader;
  /** The project's effective settings (FIX_PLAN_FILE, OPTIONAL_SECTIONS, the usage-limit wait). */
  view: ViewConfig;
  /** The dashboard pane of `ralph --monitor` (its footer says where Ctrl+C works). */
  inLayout?: boolean;
  /** Called after each frame is drawn (tests wait on it instead of sleeping). */
  onFrame?: (lines: readonly string[]) => void;
}

export async function runDashboard(options: DashboardOptions): Promise<void> {
  const { terminal, clock, signal } = options;
  const loader = options.loader ?? createSnapshotLoader({ projectDir: options.projectDir, now: () => clock.now(), view: options.view });
  let wake = new AbortController();
  const unsubscribe = terminal.onResize(() => wake.abort());
  let previous: string[] = [];
  let previousSize = '';
  terminal.write(ENTER_SCREEN);
  try {
    while (!signal.aborted) {
      // A fresh wake-up per frame, made before drawing so a resize during the draw is not lost.
      const woken = new AbortController();
      wake = woken;
      const { snapshot } = await loader.load();
      if (signal.aborted) break;
      const { columns, rows } = terminal.size();
      let prefix = '';
      if (`${columns}x${rows}` !== previousSize) {
        // After a resize the old lines may have been rewrapped; start from a clean screen once.
        prefix = previousSize === '' ? '' : CLEAR_SCREEN;
        previous = [];
        previousSize = `${columns}x${rows}`;
      }
      const frame = renderFrame(snapshot, {
        columns,
        rows,
        color: options.color,
        now: clock.now(),
        intervalSeconds: options.intervalMs / 1000,
        inLayout: options.inLayout,
      });
      const patch = prefix + buildFramePatch(previous, frame);
      if (patch !== '') terminal.write(patch);
      previous = frame;
      options.onFrame?.(frame);
      await clock.sleep(options.intervalMs, AbortSignal.any([signal, woken.signal]));
    }
  } finally {
    unsubscribe();
    terminal.write(LEAVE_SCREEN);
  }
}
