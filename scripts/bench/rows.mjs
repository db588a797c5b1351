// Bench rows: one measurement against its budget (docs/performance.md), and the small statistics the
// sections share. A row is { what, value, unit, budget, ok, note? }; `budget` is a number in
// the row's unit and `compare` says which side of it passes.

/** A measured row, judged against `budget` (null: measured for the record, no budget to judge it by). */
export function row(what, value, unit, budget, compare = 'max', note) {
  const ok = value === null || budget === null ? null : compare === 'min' ? value >= budget : value <= budget;
  return { what, value: value === null ? null : round(value), unit, budget, compare, ok, ...(note ? { note } : {}) };
}

/** A row for something that could not be measured here (why in `note`). */
export function notMeasured(what, note) {
  return { what, value: null, unit: '', budget: null, compare: 'max', ok: null, note };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function round(value) {
  return Math.abs(value) >= 100 ? Math.round(value) : Number(value.toFixed(value >= 10 ? 1 : 2));
}

/**
 * "Loop 10" and "the last loop" of a run, each as the median of a window of loops: from loop 10
 * on, and up to the last (50 loops each in a 1,000-loop run, a quarter of a shorter one), so
 * that neither a preempted loop on a busy machine nor the noise of a few loops decides a row.
 */
export function earlyAndLate(perLoop, loops) {
  const window = Math.min(50, Math.floor(loops / 4));
  const last = loops - 1;
  const pickDefined = (from, to) => perLoop.slice(from, to + 1).filter((v) => v !== null && v !== undefined);
  return { window, early: median(pickDefined(10, 10 + window - 1)), late: median(pickDefined(last - window + 1, last)) };
}
