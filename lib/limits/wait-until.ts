// Waiting out a limit: sleeps in ticks until a wall-clock time, reporting the time left on each
// tick (a live countdown on a TTY, a log line a minute otherwise) and ending early on a stop.

import type { Clock } from '../platform/clock.js';

export interface WaitUntilOptions {
  clock: Clock;
  signal?: AbortSignal;
  tickMs: number;
  onTick?: (remainingMs: number) => void;
}

/** Resolves true when the time was reached, false when the wait was aborted. */
export async function waitUntil(resumeAt: number, options: WaitUntilOptions): Promise<boolean> {
  const { clock, signal } = options;
  for (;;) {
    if (signal?.aborted) return false;
    const remaining = resumeAt - clock.now();
    if (remaining <= 0) return true;
    options.onTick?.(remaining);
    await clock.sleep(Math.min(remaining, options.tickMs), signal);
  }
}
