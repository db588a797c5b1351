// Field builders for the state-file schemas. The Bash tool writes some numbers as strings and
// older versions omit newer fields, so a missing field takes its default and a numeric string
// is a number; only a value of the wrong kind altogether ("abc" for a count) is invalid.

import * as z from 'zod';

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

/** A number; numeric strings are converted, absent or "" take `fallback`. */
export function numberField(fallback = 0) {
  return z.preprocess(
    (v) => (isAbsent(v) || v === '' ? fallback : coerceNumber(v)),
    z.number().refine(Number.isFinite, 'expected a finite number'),
  );
}

/** A number that may be left out (e.g. `current_loop` in the auto-reset breaker variant). */
export function optionalNumberField() {
  return z.preprocess(
    (v) => (isAbsent(v) || v === '' ? undefined : coerceNumber(v)),
    z.number().refine(Number.isFinite, 'expected a finite number').optional(),
  );
}

/** A string; numbers and booleans are stringified, absent takes `fallback`. */
export function stringField(fallback = '') {
  return z.preprocess(
    (v) => (isAbsent(v) ? fallback : typeof v === 'number' || typeof v === 'boolean' ? String(v) : v),
    z.string(),
  );
}

export function optionalStringField() {
  return z.preprocess((v) => (isAbsent(v) ? undefined : typeof v === 'number' ? String(v) : v), z.string().optional());
}

/** A boolean; "true"/"false" strings are converted, absent takes `fallback`. */
export function booleanField(fallback = false) {
  return z.preprocess((v) => (isAbsent(v) ? fallback : coerceBoolean(v)), z.boolean());
}

/** An array of numbers (loop numbers in `.exit_signals`); absent is []. */
export function numberListField() {
  return z.preprocess((v) => (isAbsent(v) ? [] : v), z.array(numberField()));
}

export function stringListField() {
  return z.preprocess((v) => (isAbsent(v) ? [] : v), z.array(stringField()));
}

/** A value of ours that may be "not known": absent is null. */
export function nullableNumberField() {
  return z.preprocess((v) => (isAbsent(v) || v === '' ? null : coerceNumber(v)), z.number().refine(Number.isFinite, 'expected a finite number').nullable());
}

export function nullableStringField() {
  return z.preprocess((v) => (isAbsent(v) ? null : typeof v === 'number' ? String(v) : v), z.string().nullable());
}

export function nullableBooleanField() {
  return z.preprocess((v) => (isAbsent(v) ? null : coerceBoolean(v)), z.boolean().nullable());
}
