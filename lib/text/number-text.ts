// The one rule for a number the user types, by flag, in the environment or in .ralphrc: digits,
// with a fraction where the value may have one; no sign, exponent or hex; blanks around it ignored;
// within the value's bounds. Every refusal says the same words, `expected a whole number from 1 to
// 16, got "x"`, after the place that names it (`--parallel:` or `.ralphrc:4 PARALLEL:`).

export type NumberKind = 'int' | 'number';

export interface NumberBounds {
  /** The smallest value accepted (0 when not said: no number is negative unless its bounds say so). */
  min?: number;
  max?: number;
}

export type NumberCheck = { ok: true; value: number } | { ok: false; message: string };

const PATTERN: Record<NumberKind, RegExp> = { int: /^\d+$/, number: /^(\d+(\.\d*)?|\.\d+)$/ };

/** `raw` as a number of its kind within its bounds, or why not in the words every layer uses. */
export function checkNumberText(raw: string, kind: NumberKind, bounds: NumberBounds = {}): NumberCheck {
  const text = raw.trim();
  const value = Number(text);
  const min = bounds.min ?? 0;
  const max = bounds.max ?? Infinity;
  if (PATTERN[kind].test(text) && Number.isFinite(value) && value >= min && value <= max) return { ok: true, value };
  return { ok: false, message: `expected ${describeRange(kind, bounds)}, got ${JSON.stringify(raw)}` };
}

/** The values a number accepts, in words: "a whole number from 1 to 16", "a non-negative number". */
export function describeRange(kind: NumberKind, bounds: NumberBounds = {}): string {
  const noun = kind === 'int' ? 'whole number' : 'number';
  const low = bounds.min ?? 0;
  if (bounds.max !== undefined) return `a ${noun} from ${low} to ${bounds.max}`;
  if (low === 1 && kind === 'int') return `a positive ${noun}`;
  if (low === 0) return `a non-negative ${noun}`;
  return `a ${noun} of at least ${low}`;
}
