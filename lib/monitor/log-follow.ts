// Following a live.log as `tail -F` would, through the terminal sanitizer: from its last part
// at first sight, from the start again when the file is truncated or replaced (each loop starts
// a fresh one), and every byte shown from it stripped of escape sequences and control
// characters, also a sequence that a read cut in two. The agent can write to the file directly,
// so nothing of it reaches a terminal raw: `ralph-monitor --live` (the output pane of
// `ralph --monitor`) and `ralph-monitor --unit N` (a parallel unit's window) both show it through
// this follower. And nothing of it can pass for ralph's own lines: every line of the file starts
// with a gutter (`│ `), also each piece of a line too long for the pane (wrapped here, at the
// pane's width), while the follower's own lines (a note, a problem) have none — no text the
// agent writes can start a line without it, as the sanitizer leaves no escape sequence,
// carriage return or cursor move to the file's text.

import { closeSync, constants, fstatSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { stripTerminalControls } from '../text/terminal-text.js';
import type { Clock } from '../platform/clock.js';
import { openNoFollow } from '../state/no-follow.js';
import { ralphPaths } from '../state/paths.js';

/**
 * Columns a character of the file may take on the pane, counted high: printable ASCII one, any
 * other two (an emoji with a variation selector, an ambiguous-width letter in a CJK locale: a
 * terminal may draw it wider than a table says). Wrapping early is harmless; late would let the
 * terminal start a screen line without the gutter.
 */
function safeWidth(char: string): number {
  return /^[\x20-\x7e]$/.test(char) ? 1 : 2;
}

/** What every line of the followed file starts with on the screen (agent text), and its columns. */
export const AGENT_GUTTER = '│ ';
const GUTTER_COLUMNS = 2;
const TAB_STOP = 8;

/** A live.log bigger than this at first sight is shown from its last part only, as tail does. */
const FIRST_READ_BYTES = 64 * 1024;
// The most text held back after an escape character, waiting for the rest of its sequence.
const MAX_HELD = 4096;
const READ_CHUNK = 64 * 1024;
/** Enough of a live.log's first line (`=== Loop #N - <date and time> ===`) to tell two loops' files apart. */
const HEAD_BYTES = 64;

interface Followed {
  path: string;
  ino: number;
  offset: number;
  decoder: StringDecoder;
  /** Text from an escape character on, held until the rest of its line arrives. */
  held: string;
  /** The file's first bytes when it was opened: other first bytes mean a fresh file in its place. */
  head: Buffer;
}

/** What one read found: new text shown, no such file, or a file that cannot be shown. */
export type FollowRead = 'missing' | 'read' | Error;

/** The first bytes of the open file, no further than `end` (what has been read of it). */
function readHead(fd: number, end = HEAD_BYTES): Buffer {
  const head = Buffer.alloc(Math.min(HEAD_BYTES, end));
  return head.subarray(0, head.length > 0 ? readSync(fd, head, 0, head.length, 0) : 0);
}

export class LogFollower {
  private followed: Followed | undefined;
  private lastNote = '';
  /** Columns used on the screen's current line (0: at a line's start, no gutter written yet). */
  private column = 0;

  /** `columns`: the pane's width now (undefined: not a terminal; lines are not wrapped). */
  constructor(
    private readonly write: (text: string) => void,
    private readonly columns: () => number | undefined = () => undefined,
  ) {}

  /** Writes what was appended to `path` since the last read (a file not followed yet: its last part). */
  read(path: string): FollowRead {
    if (this.followed?.path !== path) this.followed = undefined;
    let fd: number;
    try {
      fd = openNoFollow(path, constants.O_RDONLY);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return error as Error;
      this.followed = undefined;
      return 'missing';
    }
    try {
      const stats = fstatSync(fd);
      let followed = this.followed;
      // Each loop rewrites live.log in place: a file that shrank or starts differently is a new
      // loop's, even when it has already grown past what was read of the old one.
      if (!followed || followed.ino !== stats.ino || stats.size < followed.offset || !readHead(fd, followed.head.length).equals(followed.head)) {
        // A new file or a fresh loop's: start again (from its last part when it is already big).
        const start = followed ? 0 : Math.max(0, stats.size - FIRST_READ_BYTES);
        followed = { path, ino: stats.ino, offset: start, decoder: new StringDecoder('utf8'), held: '', head: Buffer.alloc(0) };
        this.followed = followed;
        this.lastNote = '';
      }
      const buffer = Buffer.alloc(READ_CHUNK);
      let text = '';
      while (followed.offset < stats.size) {
        const n = readSync(fd, buffer, 0, Math.min(READ_CHUNK, stats.size - followed.offset), followed.offset);
        if (n <= 0) break;
        followed.offset += n;
        text += followed.decoder.write(buffer.subarray(0, n));
      }
      if (followed.head.length < HEAD_BYTES) followed.head = readHead(fd, followed.offset);
      this.show(followed, text);
      return 'read';
    } finally {
      closeSync(fd);
    }
  }

  /** Forgets the file followed: the next read of it shows it anew. */
  forget(): void {
    this.followed = undefined;
  }

  /** A line of the follower's own, once per change (a placeholder or a problem). */
  note(text: string): void {
    if (text === this.lastNote) return;
    this.lastNote = text;
    this.line(text);
  }

  /** A line of the follower's own, on a line of its own, with no gutter. */
  line(text: string): void {
    this.write(`${this.column === 0 ? '' : '\n'}${text}\n`);
    this.column = 0;
  }

  private show(followed: Followed, text: string): void {
    const all = followed.held + text;
    // An escape sequence may be cut by the read: its end arrives later. Hold the text from the
    // last escape character on until its line is complete, so the sanitizer sees it whole.
    // Held no further than MAX_HELD: text without end after an escape cannot grow it for ever
    // (a sequence cut there is stripped as unterminated; its rest arrives as plain text).
    const escape = all.lastIndexOf('\x1b');
    const cut = escape !== -1 && !all.includes('\n', escape) && all.length - escape <= MAX_HELD ? escape : all.length;
    followed.held = all.slice(cut);
    const shown = this.withGutter(stripTerminalControls(all.slice(0, cut)));
    if (shown !== '') this.write(shown);
  }

  /** The file's text with the gutter at the start of each screen line, wrapped at the pane's width. */
  private withGutter(text: string): string {
    const width = this.columns();
    const wrapAt = width !== undefined && width > GUTTER_COLUMNS + 1 ? width : undefined;
    let out = '';
    for (const char of text) {
      if (char === '\n') {
        out += this.column === 0 ? `${AGENT_GUTTER.trimEnd()}\n` : '\n';
        this.column = 0;
        continue;
      }
      if (this.column === 0) {
        out += AGENT_GUTTER;
        this.column = GUTTER_COLUMNS;
      }
      const columns = char === '\t' ? TAB_STOP - (this.column % TAB_STOP) : safeWidth(char);
      if (wrapAt !== undefined && this.column + columns > wrapAt) {
        out += `\n${AGENT_GUTTER}`;
        this.column = GUTTER_COLUMNS;
      }
      out += char;
      this.column += char === '\t' ? TAB_STOP - (this.column % TAB_STOP) : columns;
    }
    return out;
  }
}

export interface LiveFollowOptions {
  projectDir: string;
  clock: Clock;
  intervalMs: number;
  signal: AbortSignal;
  write(text: string): void;
  /** The pane's width now, to wrap long lines with their gutter (undefined: not a terminal). */
  columns?: () => number | undefined;
  /** Called after each poll (tests wait on it instead of sleeping). */
  onPoll?: () => void;
}

/** `ralph-monitor --live`: the project's .ralph/live.log, sanitized, until `signal`. */
export async function followLiveLog(options: LiveFollowOptions): Promise<void> {
  const follower = new LiveLogFollower(options);
  await pollUntilAborted(() => follower.poll(), options);
}

/** The loop's live output: its text as it grows, a note while there is none to show. */
export class LiveLogFollower {
  private readonly log: LogFollower;
  private readonly path: string;

  constructor(options: Pick<LiveFollowOptions, 'projectDir' | 'write' | 'columns'>) {
    this.log = new LogFollower(options.write, options.columns);
    this.path = ralphPaths(options.projectDir).liveLog;
  }

  poll(): void {
    const shown = this.log.read(this.path);
    if (shown === 'missing') this.log.note('=== Ralph Live Output - Waiting for first loop... ===');
    else if (shown instanceof Error) this.log.note(`=== cannot show .ralph/live.log: ${stripTerminalControls(shown.message)} ===`);
  }
}

/** Calls `poll` every `intervalMs` on the clock until `signal` aborts. */
export async function pollUntilAborted(
  poll: () => void,
  options: { clock: Clock; intervalMs: number; signal: AbortSignal; onPoll?: () => void },
): Promise<void> {
  while (!options.signal.aborted) {
    poll();
    options.onPoll?.();
    await options.clock.sleep(options.intervalMs, options.signal);
  }
}
