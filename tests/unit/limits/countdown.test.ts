import { describe, expect, it } from 'vitest';
import { formatCountdown, formatDuration } from '../../../lib/limits/countdown.js';

describe('formatCountdown', () => {
  it.each([
    [0, '00:00:00'],
    [-5000, '00:00:00'],
    [1, '00:00:01'],
    [999, '00:00:01'],
    [1000, '00:00:01'],
    [59_001, '00:01:00'],
    [3_600_000, '01:00:00'],
    [(2 * 3600 + 35 * 60 + 9) * 1000, '02:35:09'],
    [150 * 3_600_000, '150:00:00'],
    [Number.NaN, '00:00:00'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatCountdown(ms)).toBe(text);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [30_000, '30s'],
    [45 * 60_000, '45m'],
    [(12 * 60 + 5) * 1000, '12m 5s'],
    [(2 * 60 + 35) * 60_000, '2h 35m'],
    [3 * 3_600_000, '3h'],
    [(2 * 24 + 3) * 3_600_000, '2d 3h'],
    [7 * 24 * 3_600_000, '7d'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
