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

export const systemClock: Clock = {
  now: () => Date.now(),
  boot: readBootReading,
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted || ms <= 0) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};
