// fakeClock(): a Clock whose sleeps finish at once and move time forward, so an hour-long wait
// is an instant test that can still assert how long it waited.

import type { Clock } from '../../lib/platform/clock.js';

export interface FakeClock extends Clock {
  advance(ms: number): void;
  set(epochMs: number): void;
  /** Total ms slept through this clock. */
  readonly slept: number;
  readonly sleeps: number[];
}

export function fakeClock(start: number | string | Date = '2026-11-30T03:10:00Z'): FakeClock {
  let now = typeof start === 'number' ? start : new Date(start).getTime();
  const sleeps: number[] = [];
  return {
    now: () => now,
    async sleep(ms: number, signal?: AbortSignal) {
      if (signal?.aborted) return;
      const step = Math.max(0, ms);
      sleeps.push(step);
      now += step;
      await Promise.resolve();
    },
    advance(ms: number) {
      now += ms;
    },
    set(epochMs: number) {
      now = epochMs;
    },
    get slept() {
      return sleeps.reduce((a, b) => a + b, 0);
    },
    sleeps,
  };
}
