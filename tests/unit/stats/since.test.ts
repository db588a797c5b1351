// `--since`: spans back from an injected "now", ISO dates and times, and a clear error otherwise.

import { describe, expect, it } from 'vitest';
import { parseSince } from '../../../lib/stats/since.js';

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);

describe('parseSince', () => {
  it.each([
    ['90s', NOW - 90_000],
    ['30m', NOW - 1_800_000],
    ['2h', NOW - 7_200_000],
    ['1.5h', NOW - 5_400_000],
    ['7d', NOW - 7 * 86_400_000],
    ['1w', NOW - 7 * 86_400_000],
    ['2026-11-30T04:00:00Z', Date.UTC(2026, 10, 30, 4)],
    ['2026-11-30T06:00:00+02:00', Date.UTC(2026, 10, 30, 4)],
    ['2026-11-29', Date.UTC(2026, 10, 29)],
  ])('reads %s', (text, ms) => {
    expect(parseSince(text, NOW)).toEqual({ ok: true, ms });
  });

  it.each(['yesterday', '2h ago', '', '-5m', '2026-13-45'])('rejects %j with the accepted forms', (text) => {
    const result = parseSince(text, NOW);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/ISO date.*30m, 2h, 7d/);
  });
});
