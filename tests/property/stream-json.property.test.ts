// Property tests of the stream-json line reader (createLineSplitter + createStreamAccumulator, as
// the Claude run wires them): any bytes split at any points give the same lines as a simple
// reference model; giant lines are dropped and counted without breaking their neighbours; the
// accumulator never throws and reads a recorded stream the same however it is chunked.

import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLineSplitter } from '../../lib/agents/line-splitter.js';
import { createStreamAccumulator, STREAM_EVENT_LINE_PREFIX, USER_LINE_PREFIX } from '../../lib/agents/stream-json.js';

const RUNS = 300;
const PREFIXES = [USER_LINE_PREFIX, STREAM_EVENT_LINE_PREFIX];
const BOM = [0xef, 0xbb, 0xbf];

interface SplitOutcome {
  lines: string[];
  skipped: number;
  filtered: number;
}

/** What the splitter must produce: split on LF, BOM off the first line, one CR off each line. */
function referenceSplit(bytes: Uint8Array, maxLineLength: number, prefixes: string[]): SplitOutcome {
  const out: SplitOutcome = { lines: [], skipped: 0, filtered: 0 };
  const segments: Buffer[] = [];
  let start = 0;
  const buf = Buffer.from(bytes);
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] === 0x0a) {
      segments.push(buf.subarray(start, i));
      start = i + 1;
    }
  }
  if (start < buf.length) segments.push(buf.subarray(start));
  segments.forEach((segment, index) => {
    let line = segment;
    if (index === 0 && line.subarray(0, 3).equals(Buffer.from(BOM))) line = line.subarray(3);
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
    if (line.length > maxLineLength) out.skipped++;
    else if (prefixes.some((p) => line.subarray(0, Buffer.byteLength(p)).equals(Buffer.from(p)))) out.filtered++;
    else out.lines.push(line.toString('utf8'));
  });
  return out;
}

function splitInChunks(bytes: Uint8Array, cuts: number[], maxLineLength: number, prefixes: string[]): SplitOutcome {
  const splitter = createLineSplitter({ maxLineLength, skipPrefixes: prefixes });
  const lines: string[] = [];
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    lines.push(...splitter.push(Buffer.from(bytes.subarray(from, cut))));
    from = cut;
  }
  lines.push(...splitter.push(Buffer.from(bytes.subarray(from))));
  lines.push(...splitter.end());
  return { lines, skipped: splitter.skippedLines, filtered: splitter.filteredLines };
}

// Bytes that exercise the edges: LF, CR, BOM, multi-byte UTF-8 (and invalid sequences), the skip prefixes.
const piece = fc.oneof(
  fc.uint8Array({ maxLength: 12 }),
  fc
    .constantFrom(
      [0x0a],
      [0x0d, 0x0a],
      [0x0d],
      BOM,
      [...Buffer.from('é😀')],
      [0xf0, 0x9f],
      [0x98, 0x80],
      [...Buffer.from(USER_LINE_PREFIX)],
      [...Buffer.from('{"type":"user"')],
      [...Buffer.from('{"type":"assistant"}')],
    )
    .map((a) => Uint8Array.from(a)),
);
const bytesArb = fc.array(piece, { maxLength: 40 }).map((parts) => Uint8Array.from(parts.flatMap((p) => [...p])));
const cutsArb = fc.array(fc.nat(2000), { maxLength: 30 });

describe('createLineSplitter (property)', () => {
  it('gives the reference lines for any bytes, however they are chunked', () => {
    fc.assert(
      fc.property(bytesArb, cutsArb, fc.integer({ min: 1, max: 40 }), fc.boolean(), (bytes, cuts, max, usePrefixes) => {
        const prefixes = usePrefixes ? PREFIXES : [];
        expect(splitInChunks(bytes, cuts, max, prefixes)).toEqual(referenceSplit(bytes, max, prefixes));
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('drops giant lines as they stream past and keeps their neighbours intact', () => {
    const normal = fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, ''));
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            normal.map((s) => ({ giant: false, text: s })),
            fc.integer({ min: 300, max: 5000 }).map((n) => ({ giant: true, text: 'x'.repeat(n) })),
          ),
          { maxLength: 12 },
        ),
        fc.integer({ min: 1, max: 97 }),
        (lines, chunkSize) => {
          const max = 256;
          const bytes = Buffer.from(lines.map((l) => `${l.text}\n`).join(''));
          const splitter = createLineSplitter({ maxLineLength: max });
          const out: string[] = [];
          for (let i = 0; i < bytes.length; i += chunkSize) out.push(...splitter.push(bytes.subarray(i, i + chunkSize)));
          out.push(...splitter.end());
          const keep = lines.filter((l) => Buffer.byteLength(l.text) <= max).map((l) => l.text);
          expect(out).toEqual(keep);
          expect(splitter.skippedLines).toBe(lines.length - keep.length);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

const RECORDINGS = ['happy_sj', 'deny_sj', 'e429u_sj', 'partial_sj', 'sigint_sj', 'noauth_sjson_v', 'e529_sj', 'oauth_ok_sj'];
const recorded = RECORDINGS.map((label) => readFileSync(new URL(`../fixtures/claude-cli-2.1.332/${label}.stdout`, import.meta.url)));

function readStream(bytes: Uint8Array, cuts: number[]) {
  const splitter = createLineSplitter({ skipPrefixes: PREFIXES });
  const acc = createStreamAccumulator();
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    for (const line of splitter.push(Buffer.from(bytes.subarray(from, cut)))) acc.push(line);
    from = cut;
  }
  for (const line of splitter.push(Buffer.from(bytes.subarray(from)))) acc.push(line);
  for (const line of splitter.end()) acc.push(line);
  return acc.snapshot();
}

describe('createStreamAccumulator (property)', () => {
  it('never throws on arbitrary lines or messages, and its snapshot stays bounded', () => {
    const message = fc.oneof(
      fc.json({ maxDepth: 4 }),
      fc
        .record({
          type: fc.constantFrom('system', 'assistant', 'user', 'result', 'rate_limit_event', 'stream_event', 42, null),
          subtype: fc.constantFrom('init', 'api_retry', 'permission_denied', undefined, 7),
          session_id: fc.oneof(fc.string(), fc.constant(null), fc.integer()),
          message: fc.oneof(
            fc.anything(),
            fc.record({
              content: fc.array(fc.record({ type: fc.constantFrom('text', 'tool_use', 'x'), text: fc.anything(), name: fc.anything(), input: fc.anything() }), {
                maxLength: 4,
              }),
            }),
          ),
          rate_limit_info: fc.anything(),
          error: fc.anything(),
        })
        .map((m) => JSON.stringify(m)),
      fc.string({ unit: 'binary', maxLength: 200 }),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 30 }), fc.array(fc.anything(), { maxLength: 5 }), (lines, objects) => {
        const acc = createStreamAccumulator({ parseStreamEvents: true });
        for (const line of lines) acc.push(line);
        for (const object of objects) acc.pushMessage(object);
        const s = acc.snapshot();
        expect(s.lineCount).toBe(lines.length + objects.length);
        expect(s.assistantTextTail.length).toBeLessThanOrEqual(4096);
        expect(s.toolUseCount).toBeGreaterThanOrEqual(0);
        expect(s.sessionId === null || typeof s.sessionId === 'string').toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('reads a recorded stream to the same snapshot however it is chunked', () => {
    const whole = recorded.map((bytes) => readStream(bytes, []));
    expect(whole[0]!.result).not.toBeNull();
    expect(whole[0]!.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: recorded.length - 1 }), fc.array(fc.nat(20_000), { maxLength: 60 }), (index, cuts) => {
        expect(readStream(recorded[index]!, cuts)).toEqual(whole[index]);
      }),
      { numRuns: RUNS },
    );
  });
});
