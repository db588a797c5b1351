// systemClock.sleep: real waits, ended early by an abort, and waits longer than a timer can take
// (2^31 - 1 ms, some 24.8 days; a longer delay would fire at once), taken in steps.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../../lib/platform/clock.js';

const DAY = 86_400_000;

/** Whether `promise` has settled once pending timers due by now have run. */
async function settled(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('systemClock.sleep', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
  afterEach(() => vi.useRealTimers());

  it('resolves after the time asked, not before', async () => {
    const sleep = systemClock.sleep(5_000);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(await settled(sleep)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(sleep)).toBe(true);
  });

  it('waits the whole of a wait longer than a timer can take', async () => {
    const sleep = systemClock.sleep(40 * DAY);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(sleep)).toBe(false);
    await vi.advanceTimersByTimeAsync(30 * DAY);
    expect(await settled(sleep)).toBe(false);
    await vi.advanceTimersByTimeAsync(10 * DAY);
    expect(await settled(sleep)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ends a long wait early when its signal aborts, leaving no timer behind', async () => {
    const controller = new AbortController();
    const sleep = systemClock.sleep(40 * DAY, controller.signal);
    await vi.advanceTimersByTimeAsync(30 * DAY);
    controller.abort();
    expect(await settled(sleep)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
