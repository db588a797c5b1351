// A transcript file written through the run's redactor. The agent's output is cut into chunks
// anywhere (mid-line, mid-character, mid-token), so text is held until a line ends, then
// redacted and written. A line longer than MAX_PENDING is flushed in pieces, cut at a space or
// quote well before its end: tokens hold neither, and a secret still arriving sits in the tail
// that is kept back. A stream-json transcript also gets the part of a line up to its last JSON
// string boundary at once (no string, so no secret, straddles one), so the log follows the
// stream even mid-line, as a transcript of a killed run should.

import { constants, createWriteStream, ftruncateSync, type WriteStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { Redactor } from '../text/redaction.js';
import { isRefusedWrite, openNoFollow } from '../state/no-follow.js';

// Longer than any key or token the redactor knows; a line is flushed past MAX_PENDING.
const KEEP_BACK = 4096;
const MAX_PENDING = 256 * 1024;

export interface TranscriptLog {
  write(chunk: Buffer): void;
  /** Writes what is still held and closes the file. */
  close(): Promise<void>;
}

export interface TranscriptLogOptions {
  /** The output is JSON lines: flush each line up to its last string boundary as it arrives. */
  json?: boolean;
  /**
   * Bytes of the output kept in the file (TRANSCRIPT_MAX_BYTES): the first and the last half,
   * the middle cut out with a marker. The reader of the stream still gets every byte.
   */
  maxBytes?: number;
  /** Told why the file was refused (a link planted in its place); the log is then discarded. */
  warn?: (message: string) => void;
}

export function openTranscriptLog(path: string, redact: Redactor | undefined, options: TranscriptLogOptions = {}): TranscriptLog {
  const log = openFullTranscriptLog(path, redact, options);
  return options.maxBytes ? capTranscript(log, options.maxBytes) : log;
}

/**
 * Keeps the head and the tail of the output, each half of `maxBytes`, cut at line ends where a
 * line ends near the cut (so no secret is split between what is kept and what is not).
 */
export function capTranscript(log: TranscriptLog, maxBytes: number): TranscriptLog {
  const half = Math.floor(maxBytes / 2);
  let headLeft = half;
  let tail: Buffer[] = [];
  let tailBytes = 0;
  let cut = 0;
  return {
    write(chunk) {
      if (headLeft > 0) {
        if (chunk.length <= headLeft) {
          headLeft -= chunk.length;
          log.write(chunk);
          return;
        }
        const newline = chunk.lastIndexOf(0x0a, headLeft - 1);
        const at = newline >= 0 ? newline + 1 : headLeft;
        log.write(chunk.subarray(0, at));
        headLeft = 0;
        chunk = chunk.subarray(at);
      }
      tail.push(chunk);
      tailBytes += chunk.length;
      while (tailBytes - (tail[0]?.length ?? 0) >= half && tail.length > 1) {
        cut += tail[0]!.length;
        tailBytes -= tail.shift()!.length;
      }
      if (tailBytes > half && tail.length === 1) {
        const only = tail[0]!;
        cut += only.length - half;
        tail = [only.subarray(only.length - half)];
        tailBytes = half;
      }
    },
    close() {
      let rest = Buffer.concat(tail);
      if (rest.length > half) {
        cut += rest.length - half;
        rest = rest.subarray(rest.length - half);
      }
      if (cut > 0) {
        // Start the kept tail on a line of its own.
        const newline = rest.indexOf(0x0a);
        if (newline >= 0 && newline < 64 * 1024) {
          cut += newline + 1;
          rest = rest.subarray(newline + 1);
        }
        log.write(Buffer.from(`\n[ralph: ${cut} bytes of output cut here; TRANSCRIPT_MAX_BYTES keeps the first and last ${half} bytes]\n`));
      }
      if (rest.length > 0) log.write(rest);
      return log.close();
    },
  };
}

function openFullTranscriptLog(path: string, redact: Redactor | undefined, options: TranscriptLogOptions): TranscriptLog {
  // The raw transcript may hold whatever the agent read or printed: owner-only, like session files.
  const fd = openTranscriptFile(path, options.warn);
  if (fd === undefined) return { write: () => undefined, close: async () => undefined };
  const stream = createWriteStream(path, { fd });
  // A failed log write (disk full) must not crash the run with an unhandled 'error' event:
  // the output is still read from the pipe, and the next state write reports the problem.
  stream.on('error', () => undefined);
  if (!redact) return { write: (chunk) => void stream.write(chunk), close: () => closeStream(stream) };

  const decoder = new StringDecoder('utf8');
  let pending = '';
  const flush = (text: string) => {
    if (text !== '') stream.write(redact(text));
  };
  return {
    write(chunk) {
      pending += decoder.write(chunk);
      const lastNewline = pending.lastIndexOf('\n');
      if (lastNewline >= 0) {
        flush(pending.slice(0, lastNewline + 1));
        pending = pending.slice(lastNewline + 1);
      }
      const cut = writablePrefixLength(pending, options.json ?? false);
      if (cut > 0) {
        flush(pending.slice(0, cut));
        pending = pending.slice(cut);
      }
    },
    close() {
      flush(pending + decoder.end());
      pending = '';
      return closeStream(stream);
    },
  };
}

/**
 * The transcript file, opened afresh following no link, or undefined when it cannot be had: a
 * link planted in its place, a folder the agent made at its name (the agent writes .ralph/logs/
 * and can tell the name from the output log beside it), no descriptor left. The transcript is a
 * record, not the run: the call's output is still read from the pipe, so the run goes on without
 * the file, and says why.
 */
function openTranscriptFile(path: string, warn: ((message: string) => void) | undefined): number | undefined {
  try {
    const fd = openNoFollow(path, constants.O_WRONLY | constants.O_CREAT, 0o600);
    ftruncateSync(fd, 0);
    return fd;
  } catch (error) {
    warn?.(
      isRefusedWrite(error)
        ? error.message
        : `${path} could not be opened (${(error as NodeJS.ErrnoException).code ?? String(error)}): the call's transcript there is not kept`,
    );
    return undefined;
  }
}

function cutPoint(text: string): number {
  const limit = text.length - KEEP_BACK;
  for (let i = limit; i > limit - MAX_PENDING / 2; i--) {
    const ch = text.charCodeAt(i);
    if (ch === 0x20 || ch === 0x22 || ch === 0x27 || ch === 0x09) return i;
  }
  return limit;
}

/** How much of a partial line (no newline in it) may be redacted and written now. */
export function writablePrefixLength(pending: string, json: boolean): number {
  if (pending.length > MAX_PENDING) return cutPoint(pending);
  return json ? afterLastStringBoundary(pending) : 0;
}

/** The index just after the last `"` that is not escaped (0 when there is none). */
function afterLastStringBoundary(text: string): number {
  for (let at = text.lastIndexOf('"'); at >= 0; at = text.lastIndexOf('"', at - 1)) {
    let backslashes = 0;
    while (at - 1 - backslashes >= 0 && text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at + 1;
    if (at === 0) break;
  }
  return 0;
}

function closeStream(stream: WriteStream): Promise<void> {
  return new Promise((resolve) => stream.end(resolve));
}
