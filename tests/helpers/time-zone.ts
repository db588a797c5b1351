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
