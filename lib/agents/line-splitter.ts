// Bytes in, complete lines out, for NDJSON read from a child process. O(1) memory in the
// stream size: a line longer than the cap is dropped as it streams past. Pure: no I/O.

/** A line longer than this (in bytes) is skipped (counted), never held whole in memory. */
export const DEFAULT_MAX_LINE_LENGTH = 4 * 1024 * 1024;

export interface LineSplitter {
  /** Feed a chunk; returns the lines it completed (without their line terminator). */
  push(chunk: Buffer | string): string[];
  /** End of input: returns the last line if it had no terminator. */
  end(): string[];
  /** Lines dropped because they were longer than maxLineLength. */
  readonly skippedLines: number;
  /** Lines dropped, undecoded, because they started with one of skipPrefixes. */
  readonly filteredLines: number;
}

export interface LineSplitterOptions {
  /** In bytes. */
  maxLineLength?: number;
  /** Drop lines starting with any of these without decoding them (e.g. USER_LINE_PREFIX). */
  skipPrefixes?: string[];
}

const NEWLINE = 0x0a;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const PENDING_SLACK = 4;

/**
 * Chunks in, complete lines out. Splits on bytes and decodes each whole line, so a multi-byte
 * character split across chunks is never broken (a UTF-8 sequence never contains a 0x0A
 * byte). Handles CRLF and a leading BOM; a giant line is dropped as it streams past.
 */
export function createLineSplitter(options: LineSplitterOptions = {}): LineSplitter {
  const maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
  const prefixes = (options.skipPrefixes ?? []).map((p) => Buffer.from(p, 'utf8'));
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let discarding = false;
  let firstLine = true;
  let skipped = 0;
  let filtered = 0;

  function split(chunk: Buffer, lines: string[]): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) break;
      if (discarding) {
        discarding = false;
        firstLine = false;
        skipped++;
      } else if (pendingLength > 0) {
        pending.push(chunk.subarray(start, nl));
        const line = Buffer.concat(pending, pendingLength + nl - start);
        pending = [];
        pendingLength = 0;
        emit(line, lines);
      } else {
        emit(chunk.subarray(start, nl), lines);
      }
      start = nl + 1;
    }
    if (discarding || start >= chunk.length) return;
    // Copy: the caller may reuse its chunk buffer.
    const rest = Buffer.from(chunk.subarray(start));
    pending.push(rest);
    pendingLength += rest.length;
    // Slack for a BOM and a CR that emit() strips: a line within the cap must be kept however
    // the stream was chunked (emit() makes the exact check).
    if (pendingLength > maxLineLength + PENDING_SLACK) {
      pending = [];
      pendingLength = 0;
      discarding = true;
    }
  }

  function emit(raw: Buffer, lines: string[]): void {
    let line = raw;
    if (firstLine) {
      firstLine = false;
      if (line.subarray(0, 3).equals(BOM)) line = line.subarray(3);
    }
    let end = line.length;
    if (end > 0 && line[end - 1] === 0x0d) end--;
    if (end > maxLineLength) {
      skipped++;
      return;
    }
    for (const prefix of prefixes) {
      if (end >= prefix.length && line.compare(prefix, 0, prefix.length, 0, prefix.length) === 0) {
        filtered++;
        return;
      }
    }
    lines.push(line.toString('utf8', 0, end));
  }

  return {
    push(chunk) {
      const lines: string[] = [];
      split(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk, lines);
      return lines;
    },
    end() {
      const lines: string[] = [];
      if (discarding) skipped++;
      else if (pendingLength > 0) emit(Buffer.concat(pending, pendingLength), lines);
      discarding = false;
      pending = [];
      pendingLength = 0;
      return lines;
    },
    get skippedLines() {
      return skipped;
    },
    get filteredLines() {
      return filtered;
    },
  };
}
