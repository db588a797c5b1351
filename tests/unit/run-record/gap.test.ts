import { describe, expect, it } from 'vitest';
import { computeGap, describeGap, gapSample, MAX_GAP_HISTORY, recordGap, trendOf } from '../../../lib/run-record/gap.js';
import { newRecord, T0 } from './record-fixture.js';

describe('gap model', () => {
  it('is open items plus failing tests, target 0, with the trend from the last two values', () => {
    const history = [gapSample(1, 3, 2), gapSample(2, 2, 1)];
    expect(computeGap(history)).toEqual({ metric: 'open_items+failing_tests', current: 3, target: 0, delta: 3, trend: 'improving', history });
    expect(computeGap([...history, gapSample(3, 2, 3)])!.trend).toBe('worsening');
    expect(computeGap([...history, gapSample(3, 3, 0)])!.trend).toBe('stagnant');
    expect(computeGap([gapSample(1, 1, null)])).toMatchObject({ current: 1, trend: 'stagnant' });
    expect(computeGap([])).toBeNull();
  });

  it('reads the trend from the last two values only', () => {
    expect(trendOf(undefined, 4)).toBe('stagnant');
    expect(trendOf(5, 4)).toBe('improving');
    expect(trendOf(4, 4)).toBe('stagnant');
    expect(trendOf(4, 5)).toBe('worsening');
    const history = [gapSample(1, 10, 0), gapSample(2, 1, 0), gapSample(3, 2, 0)];
    expect(computeGap(history)!.trend).toBe('worsening');
  });

  it('keeps a bounded history on the record', () => {
    let record = newRecord();
    for (let loop = 1; loop <= MAX_GAP_HISTORY + 10; loop++) record = recordGap(record, gapSample(loop, 1, 0), T0);
    expect(record.gap!.history).toHaveLength(MAX_GAP_HISTORY);
    expect(record.gap!.history[0]!.loop).toBe(11);
  });

  it('describes the gap and its trend for the dashboard', () => {
    expect(describeGap(computeGap([gapSample(1, 3, 2), gapSample(2, 2, 1)]))).toBe('gap 3 (2 open items + 1 failing test) ↓ improving');
    expect(describeGap(computeGap([gapSample(1, null, 4)]))).toBe('gap 4 (4 failing tests) → stagnant');
    expect(describeGap(computeGap([gapSample(1, 0, 0), gapSample(2, 1, null)]))).toBe('gap 1 (1 open item) ↑ worsening');
    expect(describeGap(null)).toBe('gap: not measured yet');
  });
});
