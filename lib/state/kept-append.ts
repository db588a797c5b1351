// A file appended to many times a run (ralph.log: several lines a loop) through one descriptor
// kept open, instead of an open, checks and a close per line. Each append first looks at the
// path without following a link: while it still names the very file the descriptor holds (same
// device and inode), the bytes go there; when it names anything else — the file was rotated,
// removed, or replaced by a link — the descriptor is closed and the path opened again with every
// check of openNoFollow, which refuses a link. Either way no byte goes anywhere but the one file
// the checks passed.

import { closeSync, constants, fstatSync, lstatSync, writeSync, type Stats } from 'node:fs';
import { openNoFollow } from './no-follow.js';

export type OpenForAppend = (path: string, flags: number, mode: number) => number;

const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT;

export class KeptAppendFile {
  #fd: number | undefined;
  #dev = 0;
  #ino = 0;

  constructor(
    readonly path: string,
    private readonly mode = 0o644,
    private readonly open: OpenForAppend = openNoFollow,
  ) {}

  /**
   * Appends `data`. `beforeAppend` is given the size of the file the path names now (none when
   * there is none) and returns true when it moved that file away (a log rotation).
   */
  append(data: string | Uint8Array, beforeAppend?: (size: number | undefined) => boolean): void {
    let now: Stats | undefined = lstatSync(this.path, { throwIfNoEntry: false });
    if (beforeAppend?.(now?.size)) now = undefined;
    if (this.#fd === undefined || !now || now.dev !== this.#dev || now.ino !== this.#ino) this.#reopen();
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(this.#fd!, bytes, offset, bytes.length - offset);
  }

  close(): void {
    if (this.#fd === undefined) return;
    const fd = this.#fd;
    this.#fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }

  #reopen(): void {
    this.close();
    const fd = this.open(this.path, APPEND_FLAGS, this.mode);
    // The file the checks passed: the path must name it for the next append to use it.
    const held = fstatSync(fd);
    this.#fd = fd;
    this.#dev = held.dev;
    this.#ino = held.ino;
  }
}
