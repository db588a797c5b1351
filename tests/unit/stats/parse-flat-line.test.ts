// The fast line reader against JSON.parse: for any line it either declines (undefined, the caller
// asks JSON.parse) or gives exactly the fields JSON.parse would — and it does not decline the
// lines ralph writes, so it is a fast path, not a stub.

import fc from 'fast-check';
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { METRIC_FIELDS } from '../../../lib/stats/metrics-summary.js';
import { parseFlatLine } from '../../../lib/stats/parse-flat-line.js';

/** The line as read-metrics hands it over: its bytes, then its newline, then the next line's. */
function readLine(line: string): Record<string, unknown> | undefined {
  const bytes = Buffer.from(`${line}\n{"loop":99,"success":true}\n`);
  const fields = parseFlatLine(bytes, 0, Buffer.byteLength(line));
  return fields && Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** What the summary would see of JSON.parse's object: its fields, or undefined if not an object. */
function viaJsonParse(line: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const r = value as Record<string, unknown>;
  return Object.fromEntries(METRIC_FIELDS.filter((f) => Object.hasOwn(r, f) && r[f] !== undefined).map((f) => [f, r[f]]));
}

const ralphLine = {
  timestamp: '2026-11-30T03:48:48+00:00',
  loop: 12,
  duration: 734,
  success: true,
  calls: 1,
  tokens: 5230,
  input_tokens: 4000,
  output_tokens: 1230,
  cache_read_tokens: 18_404,
  cache_creation_tokens: 512,
  cost_usd: 0.0731,
  loop_cost_usd: 0.0042,
  files_changed: 3,
  exit_signal: false,
  outcome: 'ok',
  tests_status: 'passing',
  agent: 'codex',
  tests_source: 'gate',
  agent_outcome: 'ok',
  agent_tests_status: null,
  verification: 'passed',
  agent_duration: 733.6,
  gate_duration: 0.4,
};

describe('parseFlatLine', () => {
  it('reads every field of a line ralph writes, and ignores the fields the summary does not read', () => {
    const line = JSON.stringify(ralphLine);
    expect(readLine(line)).toEqual(viaJsonParse(line));
    expect(Object.keys(readLine(line)!).sort()).toEqual([...METRIC_FIELDS].sort());
  });

  it.each([
    ['spacing and CR', ' { "loop" : 1 ,\t"success":true }\r'],
    ['a repeated key: the last wins', '{"duration":1,"duration":2}'],
    ['the empty object', '{}'],
    ['non-ASCII strings', '{"outcome":"échec ✓","tests_status":"😀"}'],
    ['numbers of every form', '{"loop":0,"duration":-0,"calls":-12,"cost_usd":1.5e-3,"tokens":2E+2,"files_changed":12345678901234567890}'],
    [
      'decimals at the edge of exact',
      '{"cost_usd":0.1,"loop_cost_usd":-0.000000000000003,"tokens":1.00000000000001,"calls":0.30000000000000004,"duration":123456789012345.6,"files_changed":1479309538467573.29}',
    ],
    ['integers at the edge of exact', '{"loop":999999999999999,"calls":9007199254740993}'],
    ['null and wrong types', '{"duration":null,"success":"true","calls":false,"outcome":12}'],
    ['an unknown key that looks like a known one', '{"loopy":4,"loo":5,"LOOP":6,"loop_":7}'],
  ])('agrees with JSON.parse: %s', (_name, line) => {
    const fast = readLine(line);
    expect(fast).toBeDefined();
    expect(fast).toEqual(viaJsonParse(line));
  });

  it.each([
    ['an escape in a string', '{"outcome":"fa\\"iled"}'],
    ['an escaped key', '{"dur\\u0061tion":12}'],
    ['a nested value', '{"meta":{"duration":99},"duration":5}'],
    ['an array value', '{"loop":[1]}'],
    ['a torn line', '{"timestamp":"2026-11-30T03:49:28+00:00","loop":3,"dur'],
    ['a trailing comma', '{"loop":1,}'],
    ['two objects', '{"duration":1}{"duration":2}'],
    ['leading zeros', '{"loop":012}'],
    ['a bare dot', '{"cost_usd":1.}'],
    ['a bad literal', '{"success":tru}'],
    ['a literal cut by the newline', '{"success":fals'],
    ['not an object', '[1,2,3]'],
    ['garbage', 'Loop 3 finished'],
    ['blank', '   '],
    ['a control character in a string', '{"outcome":"a\tb"}'],
  ])('declines what it does not read exactly: %s', (_name, line) => {
    expect(readLine(line)).toBeUndefined();
  });

  it('is JSON.parse wherever it answers, on any flat line', () => {
    const key = fc.oneof(fc.constantFrom(...METRIC_FIELDS), fc.string({ maxLength: 12 }));
    const json = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null));
    // Number and literal text as written, valid or not.
    const raw = fc.constantFrom('1e400', '-0.0', '0', '00', '1.', '-', '2e', '.5', '1E-2', 'tru', 'nul', 'falsey');
    const decimal = fc.tuple(fc.stringMatching(/^-?(0|[1-9]\d{0,12})$/), fc.stringMatching(/^\d{1,12}$/)).map(([whole, fraction]) => `${whole}.${fraction}`);
    const value = fc.oneof(
      json.map((v) => JSON.stringify(v)),
      raw,
      decimal,
    );
    const member = fc.tuple(key, value, fc.constantFrom('', ' ', '\t')).map(([k, v, space]) => `${space}${JSON.stringify(k)}${space}:${space}${v}${space}`);
    fc.assert(
      fc.property(fc.array(member, { maxLength: 12 }), fc.constantFrom('', ',', '}', ' x'), (members, tail) => {
        const line = `{${members.join(',')}}${tail}`;
        const fast = readLine(line);
        if (fast !== undefined) expect(fast).toEqual(viaJsonParse(line));
        else if (!/\\|[\u0000-\u001f]/.test(line) && viaJsonParse(line) !== undefined) expect.fail(`declined a flat line JSON.parse reads: ${line}`);
      }),
      { numRuns: 2000 },
    );
  });
});
