// Bench rows: one measurement against its budget (docs/performance.md), and the small statistics the
// sections share. A row is { what, value, unit, budget, ok, note? }; `budget` is a number in
// the row's unit and `compare` says which side of it passes.

export function row(what, value, unit, budget, compare = 'max', note) {
  const ok = value === null ? null : compare === 'min' ? value >= budget : value <= budget;
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
