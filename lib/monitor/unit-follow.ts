// `ralph-monitor --unit N`: the live output of the N-th unit of a `ralph --parallel` run, shown
// in the `unit-<N>` window of `ralph --monitor --parallel`. The unit is looked up by position in
// `.ralph/parallel.json` on every poll (its slug comes from plan text, so it is never in an argv),
// and its worktree's `.ralph/live.log` is followed as `tail -F` would: from the start, again
// from the start when the file is truncated or replaced (each loop starts a fresh one), and a
// placeholder until the unit's worktree exists or after it was merged and removed. Everything
// shown from the file goes through the terminal sanitizer: the agent wrote that text.

import { closeSync, constants, fstatSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { sanitizeLine, stripTerminalControls } from '../text/terminal-text.js';
import type { Clock } from '../platform/clock.js';
import { silentLogger } from '../platform/logger.js';
import type { UnitRecord } from '../parallel/run-state.js';
import { resumableRun } from '../parallel/upcoming-units.js';
import { openNoFollow } from '../state/no-follow.js';
import { ralphPaths } from '../state/paths.js';

export interface UnitFollowOptions {
  projectDir: string;
  /** The unit's place in parallel.json, from 1. */
  position: number;
  clock: Clock;
  intervalMs: number;
  signal: AbortSignal;
  write(text: string): void;
  /** Called after each poll (tests wait on it instead of sleeping). */
  onPoll?: () => void;
}

/** A live.log bigger than this at first sight is shown from its last part only, as tail does. */
const FIRST_READ_BYTES = 64 * 1024;
// The most text held back after an escape character, waiting for the rest of its sequence.
const MAX_HELD = 4096;
const READ_CHUNK = 64 * 1024;

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

/** Enough of a live.log's first line (`=== Loop #N - <date and time> ===`) to tell two loops' files apart. */
const HEAD_BYTES = 64;

export async function followUnit(options: UnitFollowOptions): Promise<void> {
  const follower = new UnitFollower(options);
  while (!options.signal.aborted) {
    follower.poll();
    options.onPoll?.();
    await options.clock.sleep(options.intervalMs, options.signal);
  }
}

/** The first bytes of the open file, no further than `end` (what has been read of it). */
function readHead(fd: number, end = HEAD_BYTES): Buffer {
  const head = Buffer.alloc(Math.min(HEAD_BYTES, end));
  return head.subarray(0, head.length > 0 ? readSync(fd, head, 0, head.length, 0) : 0);
}

export class UnitFollower {
  private readonly paths;
  private followed: Followed | undefined;
  private lastNote = '';
  private lastState = '';
  private atLineStart = true;

  constructor(private readonly options: Pick<UnitFollowOptions, 'projectDir' | 'position' | 'clock' | 'write'>) {
    this.paths = ralphPaths(options.projectDir);
  }

  poll(): void {
    const { position } = this.options;
    let unit: UnitRecord | undefined;
    try {
      unit = resumableRun(this.paths, { logger: silentLogger, clock: this.options.clock })?.units[position - 1];
    } catch {
      unit = undefined;
    }
    if (!unit) {
      this.followed = undefined;
      this.note(`=== unit-${position}: waiting for unit ${position} of a parallel run (.ralph/parallel.json) ===`);
      return;
    }
    const name = `unit-${position} ${sanitizeLine(unit.slug)}`;
    // The worktree's path is derived from the run id and the slug (both checked by parallel.json's schema), never read from the file.
    const liveLog = ralphPaths(join(this.options.projectDir, unit.worktree)).liveLog;
    if (this.followed?.path !== liveLog) this.followed = undefined;
    if (unit.state !== this.lastState) {
      this.lastState = unit.state;
      this.line(`--- ${name}: ${unit.state} ---`);
    }
    const shown = this.readNew(liveLog);
    if (shown === 'missing') {
      this.note(unit.state === 'merged'
        ? `=== ${name}: merged; its worktree was removed ===`
        : unit.state === 'pending'
          ? `=== ${name}: waiting for its worktree (${sanitizeLine(unit.worktree)}) ===`
          : `=== ${name}: waiting for its live output ===`);
    } else if (typeof shown === 'object') {
      this.note(`=== ${name}: cannot show its live.log: ${sanitizeLine(shown.message)} ===`);
    }
  }

  /** Writes what was appended to `path` since the last read; 'missing' when it does not exist. */
  private readNew(path: string): 'missing' | 'read' | Error {
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

  private show(followed: Followed, text: string): void {
    const all = followed.held + text;
    // An escape sequence may be cut by the read: its end arrives later. Hold the text from the
    // last escape character on until its line is complete, so the sanitizer sees it whole.
    // Held no further than MAX_HELD: text without end after an escape cannot grow it for ever
    // (a sequence cut there is stripped as unterminated; its rest arrives as plain text).
    const escape = all.lastIndexOf('\x1b');
    const cut = escape !== -1 && !all.includes('\n', escape) && all.length - escape <= MAX_HELD ? escape : all.length;
    followed.held = all.slice(cut);
    this.emit(stripTerminalControls(all.slice(0, cut)));
  }

  /** A line of the follower's own, once per change (a placeholder or a problem). */
  private note(text: string): void {
    if (text === this.lastNote) return;
    this.lastNote = text;
    this.line(text);
  }

  private line(text: string): void {
    this.emit(`${this.atLineStart ? '' : '\n'}${text}\n`);
  }

  private emit(text: string): void {
    if (text === '') return;
    this.atLineStart = text.endsWith('\n');
    this.options.write(text);
  }
}
