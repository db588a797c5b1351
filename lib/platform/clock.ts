// Clock: the only source of "now" and of waiting. Production uses systemClock; tests use
// fakeClock() from tests/helpers so an hour-long wait finishes instantly but can still be
// asserted ("waited 3,600,000 ms").

export interface Clock {
  now(): number;
  /** Resolves after ms, or early (without throwing) when signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
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
