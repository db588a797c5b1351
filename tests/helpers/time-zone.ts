// A test file that reads local time pins the zone, and gives the one before back when it ends:
// test files can share one worker process (tests/unit runs without isolation), so a zone left
// set would change the local time of the next file in that worker.

import { afterAll, beforeEach } from 'vitest';

/** Sets TZ to `zone`; the function returned puts the earlier one back (unset if there was none). */
export function setTimeZone(zone: string): () => void {
  const saved = process.env.TZ;
  process.env.TZ = zone;
  return () => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  };
}

/**
 * The file runs in `zone`: set now, so the describe blocks (collected before any hook runs) see
 * it too, and put back when the file ends; with `'test'`, set again before each test too (for a
 * test that changes it).
 */
export function useTimeZone(zone: string, every: 'file' | 'test' = 'file'): void {
  const restore = setTimeZone(zone);
  afterAll(restore);
  if (every === 'test') beforeEach(() => void setTimeZone(zone));
}

/** Zones whose offsets put the local minute 0, 30 and 45 minutes on from UTC's (none has summer time). */
const ZONES_BY_MINUTE = ['UTC', 'Asia/Kolkata', 'Asia/Kathmandu'] as const;

/**
 * Of UTC, +05:30 and +05:45, the zone in which `now` is earliest in its local hour: at least
 * 30 minutes before that hour ends. A test whose ralph processes run on the real clock and count
 * by the local hour (the rate window's `.last_reset`) runs in it, so the hour cannot turn
 * between what the test writes and what ralph reads.
 */
export function zoneFarFromTheHoursEnd(now: number = Date.now()): string {
  const minuteIn = (zone: string) => Number(new Intl.DateTimeFormat('en-GB', { timeZone: zone, minute: 'numeric' }).format(new Date(now)));
  return [...ZONES_BY_MINUTE].sort((a, b) => minuteIn(a) - minuteIn(b))[0]!;
}
