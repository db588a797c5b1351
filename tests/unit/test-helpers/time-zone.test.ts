// The zone a test on the real clock runs in, so the local hour cannot turn during it: whatever
// the minute the test starts at, the hour ralph counts by stays the same for half an hour.

import { describe, expect, it } from 'vitest';
import { hourKey } from '../../../lib/limits/rate-window.js';
import { setTimeZone, zoneFarFromTheHoursEnd } from '../../helpers/time-zone.js';

const MINUTE = 60_000;

describe('zoneFarFromTheHoursEnd', () => {
  it('at every minute of a UTC hour, names a zone whose local hour lasts 30 minutes more', () => {
    const hourStart = Date.parse('2026-12-06T22:00:00Z');
    for (let minute = 0; minute < 60; minute++) {
      // The last moment of each minute: the worst case for it.
      const now = hourStart + minute * MINUTE + 59_999;
      const zone = zoneFarFromTheHoursEnd(now);
      const restore = setTimeZone(zone);
      try {
        expect(hourKey(now + 29 * MINUTE), `${minute} past in UTC, ${zone}`).toBe(hourKey(now));
      } finally {
        restore();
      }
    }
  });

  it('keeps UTC early in the hour, and moves off it near the end of the hour', () => {
    expect(zoneFarFromTheHoursEnd(Date.parse('2026-12-06T22:05:00Z'))).toBe('UTC');
    expect(zoneFarFromTheHoursEnd(Date.parse('2026-12-06T22:59:50Z'))).not.toBe('UTC');
  });
});
