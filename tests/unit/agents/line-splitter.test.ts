import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLineSplitter } from '../../../lib/agents/line-splitter.js';
import { USER_LINE_PREFIX } from '../../../lib/agents/stream-json.js';

const recording = (label: string): string => readFileSync(new URL(`../../fixtures/recordings/${label}.stdout`, import.meta.url), 'utf8');

function wholeLines(text: string): string[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = body.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function splitInChunks(buffer: Buffer, sizes: () => number): string[] {
  const splitter = createLineSplitter();
  const out: string[] = [];
  for (let i = 0; i < buffer.length;) {
    const size = Math.max(1, sizes());
    out.push(...splitter.push(buffer.subarray(i, i + size)));
    i += size;
  }
  out.push(...splitter.end());
  return out;
}

// A small deterministic PRNG so a failing chunking can be reproduced.
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

describe('createLineSplitter', () => {
  const text =
    '\uFEFF{"type":"system","subtype":"init"}\r\n{"type":"assistant","text":"héllo — ünïcödé 🚀 中文"}\n\n' +
    'plain line with emoji 🎉\r\n{"type":"result","result":"done ✓"}';

  it('gives the same lines as whole-text splitting for every random chunking', () => {
    const buffer = Buffer.from(text, 'utf8');
    const expected = wholeLines(text);
    for (let seed = 1; seed <= 100; seed++) {
      const random = prng(seed);
      expect(splitInChunks(buffer, () => Math.floor(random() * 7))).toEqual(expected);
    }
  });

  it('gives the same lines for one-byte chunks (multi-byte characters split across chunks)', () => {
    const buffer = Buffer.from(text, 'utf8');
    expect(splitInChunks(buffer, () => 1)).toEqual(wholeLines(text));
  });

  it('replays a real stream-json recording byte-chunked into exactly its lines', () => {
    const raw = readFileSync(new URL('../../fixtures/recordings/partial_sj.stdout', import.meta.url));
    const random = prng(42);
    const lines = splitInChunks(raw, () => Math.floor(random() * 4096));
    expect(lines).toEqual(wholeLines(raw.toString('utf8')));
    expect(lines).toHaveLength(41);
  });

  it('strips CRLF even when \\r and \\n arrive in different chunks', () => {
    const splitter = createLineSplitter();
    expect(splitter.push('a\r')).toEqual([]);
    expect(splitter.push('\nb\r\n')).toEqual(['a', 'b']);
  });

  it('strips a BOM only at the very start of the stream', () => {
    const splitter = createLineSplitter();
    expect(splitter.push(Buffer.from([0xef, 0xbb]))).toEqual([]);
    expect(splitter.push(Buffer.from([0xbf, 0x61, 0x0a]))).toEqual(['a']);
    expect(splitter.push('\uFEFFb\n')).toEqual(['\uFEFFb']);
  });

  it('emits a last line without a terminator at end()', () => {
    const splitter = createLineSplitter();
    expect(splitter.push('x\ny')).toEqual(['x']);
    expect(splitter.end()).toEqual(['y']);
  });

  it('skips a giant line without holding it, counts it, and keeps the lines around it', () => {
    const splitter = createLineSplitter({ maxLineLength: 100 });
    const out: string[] = [];
    out.push(...splitter.push('before\n'));
    for (let i = 0; i < 50; i++) out.push(...splitter.push('x'.repeat(40)));
    out.push(...splitter.push('tail\nafter\n'));
    out.push(...splitter.push('y'.repeat(150) + '\nlast'));
    out.push(...splitter.end());
    expect(out).toEqual(['before', 'after', 'last']);
    expect(splitter.skippedLines).toBe(2);
  });

  it('drops lines with a skip prefix undecoded, and counts them', () => {
    const splitter = createLineSplitter({ skipPrefixes: [USER_LINE_PREFIX] });
    const lines = wholeLines(recording('happy_sj')).join('\n') + '\n';
    const out = splitter.push(lines);
    expect(out).toHaveLength(7);
    expect(out.some((l) => l.startsWith('{"type":"user"'))).toBe(false);
    expect(splitter.filteredLines).toBe(3);
  });

  it('does not let the caller reusing its chunk buffer corrupt a pending line', () => {
    const splitter = createLineSplitter();
    const chunk = Buffer.from('abc');
    expect(splitter.push(chunk)).toEqual([]);
    chunk.write('xyz');
    expect(splitter.push('\n')).toEqual(['abc']);
  });

  it('counts a giant unterminated last line as skipped', () => {
    const splitter = createLineSplitter({ maxLineLength: 10 });
    splitter.push('z'.repeat(30));
    expect(splitter.end()).toEqual([]);
    expect(splitter.skippedLines).toBe(1);
  });
});
