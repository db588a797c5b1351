// Streams metrics.jsonl line by line into one MetricsSummarizer: fixed-size reads, a line cut by
// a read boundary carried into the next, memory bounded by the longest line. Only the bytes present
// when reading began are read (a running ralph may append). A line ralph wrote is read by the fast
// path of parse-flat-line.ts; any other goes through JSON.parse. Blank lines are ignored (as `jq -s`
// ignores them); a line that is not a JSON object is counted as skipped.

import { Buffer } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { MetricsSummarizer, type MetricLine } from './metrics-summary.js';
import { parseFlatLine } from './parse-flat-line.js';

const NEWLINE = 10;
const BLANK = /^[ \t\r]*$/;

export interface ReadMetricsOptions {
  sinceMs?: number;
  /** Bytes per read (default 1 MiB); it changes nothing but speed. */
  chunkBytes?: number;
}

export function readMetrics(path: string, options: ReadMetricsOptions = {}): MetricsSummarizer {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const summary = new MetricsSummarizer({ size, sinceMs: options.sinceMs });
    let buf = Buffer.allocUnsafe(Math.max(1, options.chunkBytes ?? 1 << 20));
    let carry = 0; // bytes of an unfinished line at the start of buf
    let position = 0; // file offset just past the bytes in buf
    for (;;) {
      const got = position < size ? readSync(fd, buf, carry, Math.min(buf.length - carry, size - position), position) : 0;
      position += got;
      const length = carry + got;
      const bufStart = position - length;
      const data = buf.subarray(0, length);
      let lineStart = 0;
      for (let nl = data.indexOf(NEWLINE); nl !== -1; nl = data.indexOf(NEWLINE, lineStart)) {
        addLine(summary, buf, lineStart, nl, bufStart + lineStart);
        lineStart = nl + 1;
      }
      if (got === 0) {
        // The file ends without a newline (or was cut short while reading). The carried bytes are
        // shorter than buf (a full buf grew above), so there is room to end the line as the others.
        if (lineStart < length) {
          buf[length] = NEWLINE;
          addLine(summary, buf, lineStart, length, bufStart + lineStart);
        }
        return summary;
      }
      carry = length - lineStart;
      if (carry === buf.length) {
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

// The line is buf[start, end), and buf[end] is its newline.
function addLine(summary: MetricsSummarizer, buf: Buffer, start: number, end: number, offset: number): void {
  const flat = parseFlatLine(buf, start, end);
  if (flat) {
    summary.add(flat, offset);
    return;
  }
  const text = buf.toString('utf8', start, end);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (!BLANK.test(text)) summary.skip();
    return;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) summary.add(value as MetricLine, offset);
  else summary.skip();
}
