// The gap model: how far the run is from its goal, as one number — open fix_plan.md items plus
// failing tests (target 0) — sampled after each attempt, with the trend read from the last two
// samples. Pure.

import { assertMutable, isoTime } from './run-record.js';
import type { Gap, GapSample, GapTrend, RunRecord } from './record-schema.js';

// The gap as text lives apart so `ralph --status` can show it without loading the schema.
export { describeGap } from './gap-text.js';

export const GAP_METRIC = 'open_items+failing_tests' as const;
export const MAX_GAP_HISTORY = 100;

/** A sample; an unknown part (no fix_plan.md, no verification yet) counts as 0. */
export function gapSample(loop: number, openItems: number | null, failingTests: number | null): GapSample {
  return { loop, open_items: openItems, failing_tests: failingTests, value: (openItems ?? 0) + (failingTests ?? 0) };
}

/** null when there are no samples yet. */
export function computeGap(history: readonly GapSample[], target = 0): Gap | null {
  const last = history[history.length - 1];
  if (!last) return null;
  const previous = history[history.length - 2];
  return {
    metric: GAP_METRIC,
    current: last.value,
    target,
    delta: last.value - target,
    trend: trendOf(previous?.value, last.value),
    history: history.slice(-MAX_GAP_HISTORY),
  };
}

export function trendOf(previous: number | undefined, current: number): GapTrend {
  if (previous === undefined || previous === current) return 'stagnant';
  return current < previous ? 'improving' : 'worsening';
}

export function recordGap(record: RunRecord, sample: GapSample, now: number): RunRecord {
  assertMutable(record);
  const history = [...(record.gap?.history ?? []), sample];
  return { ...record, updated_at: isoTime(now), gap: computeGap(history) };
}
