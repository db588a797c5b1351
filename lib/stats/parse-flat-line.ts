// The fast path for one metrics.jsonl line: the flat objects ralph writes (keys and strings
// without escapes; numbers, true, false, null; no nesting) read straight from the bytes, keeping
// only the fields the summary reads. JSON.parse of every line was most of ralph-stats' time.
// Anything else — an escape, a nested value, a torn line, garbage — returns undefined and the
// caller asks JSON.parse, so what the summary sees is always what JSON.parse would give it.

import type { Buffer } from 'node:buffer';
import { METRIC_FIELDS, type MetricLine } from './metrics-summary.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const PLUS = 0x2b;

const FIELD_BYTES = METRIC_FIELDS.map((name) => new TextEncoder().encode(name));
/** The summary's fields by name length, for matching a key's bytes without making a string. */
const FIELDS_BY_LENGTH: Array<Array<{ index: number; bytes: Uint8Array }>> = [];
METRIC_FIELDS.forEach((name, index) => (FIELDS_BY_LENGTH[name.length] ??= []).push({ index, bytes: FIELD_BYTES[index]! }));

const TRUE = { bytes: new TextEncoder().encode('true'), value: true };
const FALSE = { bytes: new TextEncoder().encode('false'), value: false };
const NULL = { bytes: new TextEncoder().encode('null'), value: null };

// Keys come in the same order line after line: the field seen at each position of the line before
// is tried first (-1: a key the summary does not read).
const keyOrder: number[] = [];
let scannedNumber = Number.NaN;
const POWERS_OF_TEN = Array.from({ length: 16 }, (_, k) => 10 ** k);

const isDigit = (c: number) => c >= ZERO && c <= NINE;

// The strings read for each field, with their bytes: `outcome`, `tests_status` and `agent` take
// a few values over and over, and comparing a few bytes is cheaper than decoding them again.
const TIMESTAMP = METRIC_FIELDS.indexOf('timestamp');
const KNOWN_STRINGS_PER_FIELD = 16;
const knownStrings = METRIC_FIELDS.map((): Array<{ bytes: Uint8Array; text: string }> => []);

/**
 * The summary's fields of the JSON object in `b[start, end)`, or undefined: ask JSON.parse.
 * `b[end]` must be the line's newline: every scan stops at it, so none checks `end` on the way.
 */
export function parseFlatLine(b: Buffer, start: number, end: number): MetricLine | undefined {
  const values: unknown[] = new Array(METRIC_FIELDS.length);
  let i = skipSpace(b, start);
  if (b[i] !== OPEN) return undefined;
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE) return skipSpace(b, i + 1) === end ? toMetricLine(values) : undefined;
  for (let position = 0; ; position++) {
    if (b[i] !== QUOTE) return undefined;
    let field = keyOrder[position] ?? -1;
    let keyEnd = field >= 0 ? predictedKeyEnd(b, i, FIELD_BYTES[field]!) : -1;
    if (keyEnd < 0) {
      keyEnd = stringEnd(b, i);
      if (keyEnd < 0) return undefined;
      field = keyOrder[position] = fieldAt(b, i + 1, keyEnd - 1);
    }
    i = skipSpace(b, keyEnd);
    if (b[i] !== COLON) return undefined;
    i = skipSpace(b, i + 1);
    const c = b[i]!;
    let value: unknown;
    if (c === QUOTE) {
      const valueEnd = stringEnd(b, i);
      if (valueEnd < 0) return undefined;
      if (field >= 0) value = stringAt(b, i + 1, valueEnd - 1, field);
      i = valueEnd;
    } else if (c === MINUS || isDigit(c)) {
      const valueEnd = numberEnd(b, i);
      if (valueEnd < 0) return undefined;
      value = Number.isNaN(scannedNumber) ? Number(b.toString('latin1', i, valueEnd)) : scannedNumber;
      i = valueEnd;
    } else {
      const literal = c === 0x74 ? TRUE : c === 0x66 ? FALSE : c === 0x6e ? NULL : undefined;
      if (!literal || !startsWith(b, i, literal.bytes)) return undefined; // a nested value, or not JSON
      value = literal.value;
      i += literal.bytes.length;
    }
    // A repeated key: the last one wins, as with JSON.parse.
    if (field >= 0) values[field] = value;
    i = skipSpace(b, i);
    if (b[i] === COMMA) {
      i = skipSpace(b, i + 1);
    } else if (b[i] === CLOSE) {
      return skipSpace(b, i + 1) === end ? toMetricLine(values) : undefined;
    } else {
      return undefined;
    }
  }
}

// Just past the key at `i` if it is `name` (the key at this position on the line before), or -1.
function predictedKeyEnd(b: Buffer, i: number, name: Uint8Array): number {
  const close = i + 1 + name.length;
  return startsWith(b, i + 1, name) && b[close] === QUOTE ? close + 1 : -1;
}

// One literal, so every line read here has one shape (an absent field is undefined, as it is
// when read from JSON.parse's object). `v` is in METRIC_FIELDS' order.
function toMetricLine(v: unknown[]): MetricLine {
  return {
    timestamp: v[0],
    loop: v[1],
    duration: v[2],
    success: v[3],
    calls: v[4],
    tokens: v[5],
    input_tokens: v[6],
    output_tokens: v[7],
    cache_read_tokens: v[8],
    cache_creation_tokens: v[9],
    cost_usd: v[10],
    loop_cost_usd: v[11],
    files_changed: v[12],
    exit_signal: v[13],
    outcome: v[14],
    tests_status: v[15],
    agent: v[16],
    tests_source: v[17],
  };
}

function stringAt(b: Buffer, start: number, end: number, field: number): string {
  if (field === TIMESTAMP) return b.toString('utf8', start, end); // new on every line
  const known = knownStrings[field]!;
  for (const { bytes, text } of known) if (bytes.length === end - start && startsWith(b, start, bytes)) return text;
  const text = b.toString('utf8', start, end);
  if (known.length < KNOWN_STRINGS_PER_FIELD) known.push({ bytes: new Uint8Array(b.subarray(start, end)), text });
  return text;
}

// JSON's whitespace (a line has no newline in it).
function skipSpace(b: Buffer, i: number): number {
  while (b[i] === 0x20 || b[i] === 0x09 || b[i] === 0x0d) i++;
  return i;
}

/** Just past the closing quote of the string at `i`, or -1 if it is not one without escapes. */
function stringEnd(b: Buffer, i: number): number {
  if (b[i] !== QUOTE) return -1;
  for (i++; ; i++) {
    const c = b[i]!;
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH || !(c >= 0x20)) return -1; // an escape, or the line's newline
  }
}

/** The index in METRIC_FIELDS of the key in `b[start, end)`, or -1 for a key the summary does not read. */
function fieldAt(b: Buffer, start: number, end: number): number {
  const candidates = FIELDS_BY_LENGTH[end - start];
  if (!candidates) return -1;
  for (const { index, bytes } of candidates) if (startsWith(b, start, bytes)) return index;
  return -1;
}

// Stops at the first byte that differs, at the latest the line's newline.
function startsWith(b: Buffer, i: number, bytes: Uint8Array): boolean {
  for (let k = 0; k < bytes.length; k++) if (b[i + k] !== bytes[k]) return false;
  return true;
}

/**
 * Just past JSON's number grammar at `i` (-? int frac? exp?), or -1. It leaves the number's value
 * in `scannedNumber` when at most 15 digits and no exponent: the digits as an integer (exact below
 * 2^53) over a power of ten (exact up to 10^22), one correctly rounded division, which is the
 * correctly rounded value JSON.parse gives. Else NaN there: ask Number().
 */
function numberEnd(b: Buffer, i: number): number {
  const negative = b[i] === MINUS;
  if (negative) i++;
  let digits = 0;
  let fractionDigits = 0;
  let mantissa = 0;
  if (b[i] === ZERO) {
    i++;
    digits++;
  } else if (isDigit(b[i]!)) {
    for (; isDigit(b[i]!); i++, digits++) mantissa = mantissa * 10 + (b[i]! - ZERO);
  } else {
    return -1;
  }
  if (b[i] === DOT) {
    if (!isDigit(b[++i]!)) return -1;
    for (; isDigit(b[i]!); i++, digits++, fractionDigits++) mantissa = mantissa * 10 + (b[i]! - ZERO);
  }
  scannedNumber = digits <= 15 ? (negative ? -1 : 1) * (mantissa / POWERS_OF_TEN[fractionDigits]!) : Number.NaN;
  if (b[i] === 0x65 || b[i] === 0x45) {
    if (b[++i] === PLUS || b[i] === MINUS) i++;
    if (!isDigit(b[i]!)) return -1;
    while (isDigit(b[i]!)) i++;
    scannedNumber = Number.NaN;
  }
  return i;
}
