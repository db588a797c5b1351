// The byte scanner behind ralph-stats reads every field exactly as JSON.parse would, whatever
// the spacing, escapes, unicode, nesting or number form, and rejects lines that are not objects.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ABSENT, ALL_FIELDS, BASH_FIELDS, F, FALSE, FIELD_NAMES, NULL, NUMBER, OTHER, STRING, TRUE } from '../../../lib/stats/metrics-fields.js';
import { MetricsLineScanner } from '../../../lib/stats/metrics-line-scanner.js';

/** Scans `text` as one line, with the newline sentinel the reader guarantees. */
function scan(text: string, fields: readonly number[] = ALL_FIELDS) {
  const scanner = new MetricsLineScanner(fields);
  const buf = Buffer.from(`${text}\n`);
  const ok = scanner.scan(buf, 0, buf.length - 1);
  return { ok, scanner };
}

function expectedKind(value: unknown): number {
  if (value === undefined) return ABSENT;
  if (typeof value === 'number') return NUMBER;
  if (value === true) return TRUE;
  if (value === false) return FALSE;
  if (value === null) return NULL;
  if (typeof value === 'string') return STRING;
  return OTHER;
}

function expectSameAsJsonParse(text: string, fields: readonly number[]): void {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const { ok, scanner } = scan(text, fields);
  expect(ok).toBe(true);
  for (const field of fields) {
    const value = parsed[FIELD_NAMES[field]!];
    expect(scanner.kinds[field], FIELD_NAMES[field]).toBe(expectedKind(value));
    if (typeof value === 'number') expect(scanner.numbers[field]).toBe(value);
    if (typeof value === 'string') expect(scanner.string(field)).toBe(value);
  }
}

describe('MetricsLineScanner', () => {
  it('reads a line the loop writes', () => {
    const line = JSON.stringify({
      timestamp: '2026-11-30T04:48:54+00:00', loop: 3, duration: 14, success: true, calls: 1, tokens: 1834,
      cost_usd: 0.123456, files_changed: 2, exit_signal: false, tests_status: 'passing', outcome: 'ok',
      input_tokens: 1200, output_tokens: 634, cache_read_tokens: 20480, cache_creation_tokens: 512,
    });
    expectSameAsJsonParse(line, ALL_FIELDS);
    const { scanner } = scan(line);
    expect(scanner.timestampMs()).toBe(Date.parse('2026-11-30T04:48:54Z'));
  });

  it('reads a Bash-written line and leaves the fields it lacks absent', () => {
    const { ok, scanner } = scan('{"timestamp":"2026-11-30T03:48:48+00:00","loop":1,"duration":14,"success":true,"calls":1}');
    expect(ok).toBe(true);
    expect(scanner.kinds[F.success]).toBe(TRUE);
    expect(scanner.numbers[F.duration]).toBe(14);
    expect(scanner.kinds[F.cost_usd]).toBe(ABSENT);
    expect(scanner.kinds[F.input_tokens]).toBe(ABSENT);
  });

  it.each([
    ['spaces and CRLF', '{ "success" : false , "duration" : 7.25 , "calls":2 }\r'],
    ['escaped strings and unicode', '{"outcome":"fa\\"il\\u00e9d","tests_status":"✓ passing","success":true}'],
    ['nested values (read by JSON.parse)', '{"meta":{"duration":99,"x":[1,{"y":2}]},"duration":5,"success":true}'],
    ['escaped key', '{"dur\\u0061tion":12,"success":true}'],
    ['exponents and long numbers', '{"duration":1.5e3,"cost_usd":0.12345678901234567,"calls":-0,"loop":12345678901234567890}'],
    ['duplicate keys (last wins)', '{"duration":1,"duration":2,"success":true,"calls":1}'],
    ['strings where numbers belong', '{"duration":"14","success":"true","calls":null}'],
  ])('reads %s like JSON.parse', (_name, line) => {
    expectSameAsJsonParse(line, ALL_FIELDS);
  });

  it.each([
    ['blank', ''],
    ['not JSON', 'Loop 3 finished'],
    ['an array', '[1,2,3]'],
    ['a number', '42'],
    ['a line torn by a kill', '{"timestamp":"2026-11-30T04:48:54+00:00","loop":3,"dura'],
    ['two objects on one line', '{"duration":1}{"duration":2}'],
    ['trailing garbage', '{"duration":1,"success":true,"calls":1} x'],
    ['a bad literal', '{"success":tru,"duration":1}'],
  ])('rejects %s', (_name, line) => {
    expect(scan(line).ok).toBe(false);
    expect(scan(line, BASH_FIELDS).ok).toBe(false);
  });

  it('stops once the wanted fields are read but still rejects a torn line', () => {
    const torn = '{"success":true,"duration":3,"calls":1,"tokens":18';
    expect(scan(torn, BASH_FIELDS).ok).toBe(false);
    expect(scan('{"success":true,"duration":3,"calls":1,"tokens":18}', BASH_FIELDS).ok).toBe(true);
  });

  it('parses the timestamp forms the Bash tool and others write', () => {
    const at = (ts: string) => {
      const { scanner } = scan(JSON.stringify({ timestamp: ts }));
      return scanner.timestampMs();
    };
    expect(at('2026-11-30T04:48:54+00:00')).toBe(Date.UTC(2026, 10, 30, 4, 48, 54));
    expect(at('2026-11-30T04:48:54Z')).toBe(Date.UTC(2026, 10, 30, 4, 48, 54));
    expect(at('2026-11-30T06:48:54+02:00')).toBe(Date.UTC(2026, 10, 30, 4, 48, 54));
    expect(at('2026-11-30T04:48:54.250-0130')).toBe(Date.UTC(2026, 10, 30, 6, 18, 54, 250));
    expect(at('2026-11-30 04:48:54')).toBe(Date.parse('2026-11-30 04:48:54'));
    expect(at('yesterday')).toBeNaN();
  });

  it('agrees with JSON.parse on generated lines', () => {
    const key = fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string({ maxLength: 12 }));
    const value = fc.oneof(
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const space = fc.constantFrom('', ' ', '  ', '\t');
    const line = fc
      .uniqueArray(fc.tuple(key, value, space, space), { selector: ([k]) => k, maxLength: 20 })
      .map((entries) => `{${entries.map(([k, v, a, b]) => `${a}${JSON.stringify(k)}${b}:${a}${JSON.stringify(v)}${b}`).join(',')}}`);
    fc.assert(
      fc.property(line, fc.boolean(), (text, bashOnly) => {
        expectSameAsJsonParse(text, bashOnly ? BASH_FIELDS : ALL_FIELDS);
      }),
      { numRuns: 500 },
    );
  });
});
