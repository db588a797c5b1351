// Reads the fields ralph-stats needs from one metrics.jsonl line, straight from the file's bytes.
// JSON.parse on every line of a million-line file costs seconds (an object per line); this
// scanner walks the bytes once, keeps numbers as numbers and strings as offsets, and stops as
// soon as it has every field it was asked for. A line it does not understand (nested values,
// escaped keys, odd spacing) goes to JSON.parse, so any valid JSON object line is read right.

import { Buffer } from 'node:buffer';
import { ABSENT, FALSE, FIELD_COUNT, FIELD_NAMES, NULL, NUMBER, OTHER, STRING, TRUE, F } from './metrics-fields.js';

const TABLE_MASK = 1023;
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);
// More digits than a double holds exactly: let the engine parse the text.
const MAX_FAST_DIGITS = 15;

function hashKey(bytes: Uint8Array): number {
  let h = 0;
  for (const c of bytes) h = (Math.imul(h, 31) + c) | 0;
  return h;
}

export class MetricsLineScanner {
  /** Kind of value each field held on the last line (ABSENT, NUMBER, TRUE, …). */
  readonly kinds = new Uint8Array(FIELD_COUNT);
  /** Numeric value of NUMBER fields on the last line. */
  readonly numbers = new Float64Array(FIELD_COUNT);
  private readonly starts = new Int32Array(FIELD_COUNT);
  private readonly ends = new Int32Array(FIELD_COUNT);
  private readonly escaped = new Uint8Array(FIELD_COUNT);
  private readonly wanted = new Uint8Array(FIELD_COUNT);
  private readonly wantedCount: number;
  private readonly table = new Int32Array(TABLE_MASK + 1);
  private readonly hashes = new Int32Array(FIELD_COUNT);
  private readonly lengths = new Int32Array(FIELD_COUNT);
  private buffer: Buffer = Buffer.alloc(0);
  private parsed: Record<string, unknown> | undefined;
  private readonly lastBytes: (Buffer | undefined)[] = new Array<Buffer | undefined>(FIELD_COUNT).fill(undefined);
  private readonly lastStrings: (string | undefined)[] = new Array<string | undefined>(FIELD_COUNT).fill(undefined);

  constructor(wantedFields: readonly number[]) {
    for (const field of wantedFields) this.wanted[field] = 1;
    this.wantedCount = this.wanted.reduce((sum, w) => sum + w, 0);
    FIELD_NAMES.forEach((name, index) => {
      const bytes = Buffer.from(name);
      const h = hashKey(bytes);
      // The field names are fixed, so a clash would show up in every test run.
      if (this.table[h & TABLE_MASK] !== 0) throw new Error(`metrics field hash clash: ${name}`);
      this.table[h & TABLE_MASK] = index + 1;
      this.hashes[index] = h;
      this.lengths[index] = bytes.length;
    });
  }

  /**
   * Reads the line in buf[start, end). buf[end] must be a newline (the caller guarantees a
   * sentinel). False when the line is not a JSON object (blank, torn by a kill, garbage).
   */
  scan(buf: Buffer, start: number, end: number): boolean {
    this.kinds.fill(ABSENT);
    this.parsed = undefined;
    this.buffer = buf;
    if (this.scanFast(buf, start, end)) return true;
    this.kinds.fill(ABSENT);
    return this.scanParsed(buf, start, end);
  }

  /**
   * The string value of a STRING field on the last line. Outcomes and test states repeat line
   * after line, so the last decoded value is reused while the bytes are the same.
   */
  string(field: number): string | undefined {
    if (this.kinds[field] !== STRING) return undefined;
    if (this.parsed) return this.parsed[FIELD_NAMES[field]!] as string;
    const start = this.starts[field]!;
    const end = this.ends[field]!;
    const cached = this.lastBytes[field];
    if (cached && cached.length === end - start && sameBytes(this.buffer, start, cached)) return this.lastStrings[field];
    const text = this.buffer.toString('utf8', start, end);
    const value = this.escaped[field] ? (JSON.parse(`"${text}"`) as string) : text;
    this.lastBytes[field] = Buffer.from(this.buffer.subarray(start, end));
    this.lastStrings[field] = value;
    return value;
  }

  /** The line's timestamp in ms since the epoch, NaN when absent or unreadable. */
  timestampMs(): number {
    if (this.kinds[F.timestamp] !== STRING) return Number.NaN;
    if (!this.parsed && !this.escaped[F.timestamp]) {
      const fast = parseIsoBytes(this.buffer, this.starts[F.timestamp]!, this.ends[F.timestamp]!);
      if (!Number.isNaN(fast)) return fast;
    }
    return Date.parse(this.string(F.timestamp)!);
  }

  private scanFast(b: Buffer, start: number, end: number): boolean {
    let remaining = this.wantedCount;
    let i = start;
    let c = b[i]!;
    while (c === 32 || c === 9 || c === 13) c = b[++i]!;
    if (c !== 123) return false;
    c = b[++i]!;
    while (c === 32 || c === 9 || c === 13) c = b[++i]!;
    if (c === 125) return endsHere(b, i + 1, end);
    for (;;) {
      if (c !== 34) return false;
      // Key: hashed while it is read; escapes and control characters go the slow way.
      const keyStart = ++i;
      let h = 0;
      c = b[i]!;
      while (c > 34 && c !== 92) {
        h = (Math.imul(h, 31) + c) | 0;
        c = b[++i]!;
      }
      if (c !== 34) return false;
      let field = this.table[h & TABLE_MASK]! - 1;
      if (field >= 0 && (this.hashes[field] !== h || this.lengths[field] !== i - keyStart)) field = -1;
      c = b[++i]!;
      while (c === 32 || c === 9 || c === 13) c = b[++i]!;
      if (c !== 58) return false;
      c = b[++i]!;
      while (c === 32 || c === 9 || c === 13) c = b[++i]!;

      let kind: number;
      if (c === 34) {
        const valueStart = ++i;
        let escaped = 0;
        c = b[i]!;
        while (c !== 34) {
          if (c === 92) {
            escaped = 1;
            if (++i >= end) return false;
          } else if (i >= end) {
            return false;
          }
          c = b[++i]!;
        }
        if (field >= 0) {
          this.starts[field] = valueStart;
          this.ends[field] = i;
          this.escaped[field] = escaped;
        }
        kind = STRING;
        i++;
      } else if ((c >= 48 && c <= 57) || c === 45) {
        const valueStart = i;
        const negative = c === 45;
        if (negative) c = b[++i]!;
        if (c < 48 || c > 57) return false;
        let mantissa = 0;
        let digits = 0;
        let scale = 0;
        while (c >= 48 && c <= 57) {
          mantissa = mantissa * 10 + (c - 48);
          digits++;
          c = b[++i]!;
        }
        if (c === 46) {
          c = b[++i]!;
          if (c < 48 || c > 57) return false;
          while (c >= 48 && c <= 57) {
            mantissa = mantissa * 10 + (c - 48);
            digits++;
            scale++;
            c = b[++i]!;
          }
        }
        let value: number;
        if (c === 101 || c === 69 || digits > MAX_FAST_DIGITS) {
          while ((c >= 48 && c <= 57) || c === 101 || c === 69 || c === 43 || c === 45) c = b[++i]!;
          value = Number(b.toString('latin1', valueStart, i));
          if (Number.isNaN(value)) return false;
        } else {
          // Exact: both operands are exact doubles, so one division rounds like the parser does.
          value = scale === 0 ? mantissa : mantissa / POW10[scale]!;
          if (negative) value = -value;
        }
        if (field >= 0) this.numbers[field] = value;
        kind = NUMBER;
      } else if (c === 116 && b[i + 1] === 114 && b[i + 2] === 117 && b[i + 3] === 101) {
        kind = TRUE;
        i += 4;
      } else if (c === 102 && b[i + 1] === 97 && b[i + 2] === 108 && b[i + 3] === 115 && b[i + 4] === 101) {
        kind = FALSE;
        i += 5;
      } else if (c === 110 && b[i + 1] === 117 && b[i + 2] === 108 && b[i + 3] === 108) {
        kind = NULL;
        i += 4;
      } else {
        return false; // nested object or array: JSON.parse reads it
      }
      if (i > end) return false;
      if (field >= 0) {
        if (this.wanted[field] === 1 && this.kinds[field] === ABSENT) remaining--;
        this.kinds[field] = kind;
        // Everything asked for is in hand; a torn line still fails the closing-brace check.
        if (remaining === 0) return closesObject(b, start, end);
      }
      c = b[i]!;
      while (c === 32 || c === 9 || c === 13) c = b[++i]!;
      if (c === 44) {
        c = b[++i]!;
        while (c === 32 || c === 9 || c === 13) c = b[++i]!;
        continue;
      }
      if (c === 125) return endsHere(b, i + 1, end);
      return false;
    }
  }

  private scanParsed(buf: Buffer, start: number, end: number): boolean {
    let value: unknown;
    try {
      value = JSON.parse(buf.toString('utf8', start, end));
    } catch {
      return false;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
    const record = value as Record<string, unknown>;
    this.parsed = record;
    for (let field = 0; field < FIELD_COUNT; field++) {
      const v = record[FIELD_NAMES[field]!];
      if (v === undefined) continue;
      if (typeof v === 'number') {
        this.kinds[field] = NUMBER;
        this.numbers[field] = v;
      } else if (v === true) this.kinds[field] = TRUE;
      else if (v === false) this.kinds[field] = FALSE;
      else if (v === null) this.kinds[field] = NULL;
      else if (typeof v === 'string') this.kinds[field] = STRING;
      else this.kinds[field] = OTHER;
    }
    return true;
  }
}

function sameBytes(b: Buffer, start: number, bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (b[start + i] !== bytes[i]) return false;
  return true;
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 13;
}

/** Only whitespace between `from` and the line end. */
function endsHere(b: Buffer, from: number, end: number): boolean {
  for (let i = from; i < end; i++) if (!isBlank(b[i]!)) return false;
  return from <= end;
}

/** The line's last non-blank byte is the object's closing brace. */
function closesObject(b: Buffer, start: number, end: number): boolean {
  let i = end - 1;
  while (i > start && isBlank(b[i]!)) i--;
  return b[i] === 125;
}

/**
 * `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM|±HHMM)` read from bytes (the Bash tool and ralph both write
 * `2026-11-30T04:48:54+00:00`); NaN for anything else, which then goes to Date.parse.
 */
function parseIsoBytes(b: Buffer, start: number, end: number): number {
  const digit = (at: number) => {
    const d = b[at]! - 48;
    return d >= 0 && d <= 9 ? d : Number.NaN;
  };
  const two = (at: number) => digit(at) * 10 + digit(at + 1);
  if (end - start < 19 || b[start + 4] !== 45 || b[start + 7] !== 45 || (b[start + 10] !== 84 && b[start + 10] !== 32)) {
    return Number.NaN;
  }
  const year = two(start) * 100 + two(start + 2);
  let ms = Date.UTC(year, two(start + 5) - 1, two(start + 8), two(start + 11), two(start + 14), two(start + 17));
  let i = start + 19;
  if (b[i] === 46) {
    let scale = 100;
    for (i++; i < end && b[i]! >= 48 && b[i]! <= 57; i++, scale /= 10) ms += (b[i]! - 48) * scale;
    ms = Math.floor(ms);
  }
  if (i === end) return Number.NaN; // no zone: local time, Date.parse decides
  if (b[i] === 90 && i + 1 === end) return ms;
  const sign = b[i] === 43 ? -1 : b[i] === 45 ? 1 : 0;
  if (sign === 0) return Number.NaN;
  const hours = two(i + 1);
  const minutes = b[i + 3] === 58 ? two(i + 4) : two(i + 3);
  const length = b[i + 3] === 58 ? 6 : 5;
  if (i + length !== end) return Number.NaN;
  return ms + sign * (hours * 60 + minutes) * 60_000;
}
