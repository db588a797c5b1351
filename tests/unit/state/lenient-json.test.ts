import { describe, expect, it } from 'vitest';
import { parseJsonWithRawControls, parseLenientJson } from '../../../lib/state/lenient-json.js';

describe('parseLenientJson', () => {
  it('returns valid JSON objects as they are', () => {
    expect(parseLenientJson('{"a": {"b": [1]}, "c": "d"}')).toEqual({ a: { b: [1] }, c: 'd' });
  });

  it('is undefined for valid JSON that is not an object, and for text with no fields', () => {
    expect(parseLenientJson('[1,2]')).toBeUndefined();
    expect(parseLenientJson('"x"')).toBeUndefined();
    expect(parseLenientJson('not json at all')).toBeUndefined();
  });

  it('recovers top-level fields of a pretty file whose string holds raw quotes', () => {
    const text = [
      '{',
      '    "status": "executing",',
      '    "indicator": "⠋",',
      '    "elapsed_seconds": 10,',
      '    "last_output": "{"type":"system","session_id":"abc",',
      '    "nested": {',
      '        "inner": 1',
      '    },',
      '    "timestamp": "2026-11-30 04:49:03"',
      '}',
    ].join('\n');
    expect(parseLenientJson(text)).toEqual({
      status: 'executing',
      indicator: '⠋',
      elapsed_seconds: 10,
      last_output: '{"type":"system","session_id":"abc',
      timestamp: '2026-11-30 04:49:03',
    });
  });

  it('keeps escapes in well-formed strings and handles CRLF files', () => {
    expect(parseLenientJson('{\r\n  "a": "x\\"y",\r\n  "b": true,\r\n  "c": "broken "quote"\r\n')).toEqual({
      a: 'x"y',
      b: true,
      c: 'broken "quote',
    });
  });

  it('recovers well-formed scalars from a one-line object', () => {
    expect(parseLenientJson('{"status": "failed", "files_changed": 3, "error": "is_error:true", "x": "a"b"}')).toMatchObject({
      status: 'failed',
      files_changed: 3,
      error: 'is_error:true',
    });
  });
});

describe('a hand-built file the agent shaped to be slow or deep', () => {
  it('salvages a field whose value ends in a long run of spaces at once, not after minutes of backtracking', () => {
    const spaces = ' '.repeat(10_000);
    const text = `{\n  "status": "executing",\n  "last_output": "said "hi"${spaces}done",\n  "files_changed": 2${spaces} ,\n`;
    expect(parseLenientJson(text)).toEqual({ status: 'executing', last_output: `said "hi"${spaces}done`, files_changed: 2 });
  });

  it('salvages a file of many fields without overflowing the stack', () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => `  "k${i}": ${i},`);
    const found = parseLenientJson(`{\n${lines.join('\n')}\n  "broken": "a"b"\n`);
    expect(Object.keys(found ?? {})).toHaveLength(200_001);
    expect(found).toMatchObject({ k0: 0, k199999: 199_999, broken: 'a"b' });
  });
});

describe('control characters inside strings (a state file the agent wrote)', () => {
  it('are read as if escaped, in a strict, pretty or one-line file, and never throw', () => {
    expect(parseLenientJson('{"last_action": "bad\x01\x1b]0;PWN\x07x", "n": 1}')).toEqual({ last_action: 'bad\x01\x1b]0;PWN\x07x', n: 1 });
    expect(parseLenientJson('{\n  "a": "x\ty\x00",\n  "b": 2\n}\n')).toEqual({ a: 'x\ty\x00', b: 2 });
    // Not JSON as a whole (a raw quote), a control character in another field: salvaged.
    expect(parseLenientJson('{"status": "failed", "x": "a"b", "reason": "r\x1b[2J"}')).toMatchObject({ status: 'failed', reason: 'r\x1b[2J' });
  });

  it('keeps escaped quotes and backslashes as they are', () => {
    expect(parseJsonWithRawControls('{"a": "q\\"\x01\\\\", "b": "\x02"}')).toEqual({ a: 'q"\x01\\', b: '\x02' });
    expect(parseJsonWithRawControls('{"a": "\x01" oops')).toBeUndefined();
  });
});
