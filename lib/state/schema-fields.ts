// Field builders for the state-file schemas. The Bash tool writes some numbers as strings and
// older versions omit newer fields, so a missing field takes its default and a numeric string
// is a number; only a value of the wrong kind altogether ("abc" for a count) is invalid.

import * as z from './zod.js';

const NUMERIC = /^\s*-?\d+(\.\d+)?\s*$/;

function coerceNumber(value: unknown): unknown {
  return typeof value === 'string' && NUMERIC.test(value) ? Number(value) : value;
}

function coerceBoolean(value: unknown): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

/**
 * One schema per fallback: zod schemas are immutable, so every field with the same builder and
 * fallback shares an instance. Building a zod schema is the costly part of loading the state
 * readers (~130 fields, 3–4 schema objects each); sharing them keeps `--circuit-status` and
 * `ralph-monitor --once` within their start-up budgets (docs/performance.md).
 */
function sharedPerFallback<A extends [] | [fallback: unknown], S>(build: (...args: A) => S): (...args: A) => S {
  const built = new Map<unknown, S>();
  return (...args) => {
    const key = args[0];
    let schema = built.get(key);
    if (schema === undefined) {
      schema = build(...args);
      built.set(key, schema);
    }
    return schema;
  };
}

/** A number; numeric strings are converted, absent or "" take `fallback`. */
export const numberField = sharedPerFallback((fallback = 0) =>
  z.preprocess((v) => (isAbsent(v) || v === '' ? fallback : coerceNumber(v)), z.number().refine(Number.isFinite, 'expected a finite number')),
);

/** A number that may be left out (e.g. `current_loop` in the auto-reset breaker variant). */
export const optionalNumberField = sharedPerFallback(() =>
  z.preprocess((v) => (isAbsent(v) || v === '' ? undefined : coerceNumber(v)), z.number().refine(Number.isFinite, 'expected a finite number').optional()),
);

/** A string; numbers and booleans are stringified, absent takes `fallback`. */
export const stringField = sharedPerFallback((fallback = '') =>
  z.preprocess((v) => (isAbsent(v) ? fallback : typeof v === 'number' || typeof v === 'boolean' ? String(v) : v), z.string()),
);

export const optionalStringField = sharedPerFallback(() =>
  z.preprocess((v) => (isAbsent(v) ? undefined : typeof v === 'number' ? String(v) : v), z.string().optional()),
);

/** A boolean; "true"/"false" strings are converted, absent takes `fallback`. */
export const booleanField = sharedPerFallback((fallback = false) => z.preprocess((v) => (isAbsent(v) ? fallback : coerceBoolean(v)), z.boolean()));

/** An array of numbers (loop numbers in `.exit_signals`); absent is []. */
export const numberListField = sharedPerFallback(() => z.preprocess((v) => (isAbsent(v) ? [] : v), z.array(numberField())));

export const stringListField = sharedPerFallback(() => z.preprocess((v) => (isAbsent(v) ? [] : v), z.array(stringField())));

/** A value of ours that may be "not known": absent is null. */
export const nullableNumberField = sharedPerFallback(() =>
  z.preprocess((v) => (isAbsent(v) || v === '' ? null : coerceNumber(v)), z.number().refine(Number.isFinite, 'expected a finite number').nullable()),
);

export const nullableStringField = sharedPerFallback(() =>
  z.preprocess((v) => (isAbsent(v) ? null : typeof v === 'number' ? String(v) : v), z.string().nullable()),
);

export const nullableBooleanField = sharedPerFallback(() => z.preprocess((v) => (isAbsent(v) ? null : coerceBoolean(v)), z.boolean().nullable()));
