// Clock: the only source of "now" and of waiting. Production uses systemClock; tests use
// fakeClock() from tests/helpers so an hour-long wait finishes instantly but can still be
// asserted ("waited 3,600,000 ms").

import { readBootReading, type BootReading } from './boot-reading.js';

export interface Clock {
  now(): number;
  /** Boot id and uptime: real time between two readings of one boot (absent on fake clocks unless a test gives it). */
  boot?(): BootReading | undefined;
  /** Resolves after ms, or early (without throwing) when signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The longest delay a timer takes; a longer one would fire at once (Node sets it to 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  boot: readBootReading,
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted || ms <= 0) return resolve();
      // A wait past the timer's limit (some 24.8 days: `--job-minutes 40000`) is taken in steps.
      let left = ms;
      let timer = setTimeout(step, Math.min(left, MAX_TIMER_MS));
      function step() {
        left -= Math.min(left, MAX_TIMER_MS);
        if (left > 0) timer = setTimeout(step, Math.min(left, MAX_TIMER_MS));
        else done();
      }
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};
