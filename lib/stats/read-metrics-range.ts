// Streams one byte range of metrics.jsonl through the line scanner into a partial: fixed-size
// reads, a line cut by a read boundary carried into the next one, memory bounded by the longest
// line. Blank lines are ignored (as `jq -s` ignores them); unreadable lines are counted.

import { Buffer } from 'node:buffer';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { MetricsLineScanner } from './metrics-line-scanner.js';
import { chartBlockBytes, PartialBuilder, type LineSpan, type MetricsPartial, type PartialOptions } from './metrics-partial.js';

const CHUNK_BYTES = 1 << 20;
const NEWLINE = 10;

export interface ByteRange {
  start: number;
  end: number;
}

export interface ReadRangeOptions extends PartialOptions {
  /** Field indices to read (see metrics-fields.ts). */
  fields: readonly number[];
}

export function readMetricsRange(path: string, range: ByteRange, options: ReadRangeOptions): MetricsPartial {
  const scanner = new MetricsLineScanner(options.fields);
  const builder = new PartialBuilder({ ...options, chartBlockBytes: options.chartBlockBytes ?? chartBlockBytes(statSync(path).size) });
  let chunkOffset = range.start;
  const visit = (buf: Buffer, start: number, end: number) => {
    if (start === end) return;
    if (scanner.scan(buf, start, end)) builder.add(scanner, { offset: chunkOffset + start, length: end - start });
    else if (!isBlankLine(buf, start, end)) builder.skip();
  };

  const fd = openSync(path, 'r');
  try {
    // One spare byte past the data, so the last line can end in a newline sentinel too.
    let buf = Buffer.allocUnsafe(CHUNK_BYTES + 1);
    let carry = 0;
    let position = range.start;
    for (;;) {
      const want = Math.min(buf.length - 1 - carry, range.end - position);
      const got = want > 0 ? readSync(fd, buf, carry, want, position) : 0;
      chunkOffset = position - carry;
      position += got;
      const length = carry + got;
      const done = got === 0 || position >= range.end;
      const data = buf.subarray(0, length);
      let lineStart = 0;
      for (let nl = data.indexOf(NEWLINE); nl !== -1; nl = data.indexOf(NEWLINE, lineStart)) {
        visit(buf, lineStart, nl);
        lineStart = nl + 1;
      }
      if (done) {
        if (lineStart < length) {
          buf[length] = NEWLINE;
          visit(buf, lineStart, length);
        }
        return builder.finish(options.detail ? readTimestampAt(fd, scanner, builder.lastKept) : Number.NaN);
      }
      carry = length - lineStart;
      if (lineStart === 0 && carry >= buf.length - 1) {
        // One line longer than the buffer: make room for the rest of it.
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, carry);
        buf = bigger;
      } else {
        buf.copy(buf, 0, lineStart, length);
      }
    }
  } finally {
    closeSync(fd);
  }
}

// Timestamps are read for the first and last kept lines only: parsing one per line is slow.
function readTimestampAt(fd: number, scanner: MetricsLineScanner, span: LineSpan | undefined): number {
  if (!span) return Number.NaN;
  const line = Buffer.allocUnsafe(span.length + 1);
  readSync(fd, line, 0, span.length, span.offset);
  line[span.length] = NEWLINE;
  return scanner.scan(line, 0, span.length) ? scanner.timestampMs() : Number.NaN;
}

/** Splits a file of `size` bytes into `count` ranges that start at line starts. */
export function splitIntoLineRanges(path: string, size: number, count: number): ByteRange[] {
  const starts = [0];
  const fd = openSync(path, 'r');
  try {
    const window = Buffer.allocUnsafe(64 * 1024);
    for (let k = 1; k < count; k++) {
      let at = Math.max(Math.floor((size * k) / count), starts[starts.length - 1]!);
      let next = size;
      while (at < size) {
        const got = readSync(fd, window, 0, window.length, at);
        if (got === 0) break;
        const nl = window.subarray(0, got).indexOf(NEWLINE);
        if (nl !== -1) {
          next = at + nl + 1;
          break;
        }
        at += got;
      }
      if (next > starts[starts.length - 1]! && next < size) starts.push(next);
    }
  } finally {
    closeSync(fd);
  }
  return starts.map((start, i) => ({ start, end: starts[i + 1] ?? size }));
}

function isBlankLine(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}
