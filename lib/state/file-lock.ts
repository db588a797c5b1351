// A short lock around one read-modify-write of a file two processes may change at once (the
// queue: `ralph-queue add` while `ralph-queue process` saves an item's status). The lock file is
// created exclusively (O_CREAT|O_EXCL: an existing file or a link there is never followed) and
// holds the owner's pid; a lock whose owner is gone is taken over. Waiting is synchronous and
// short: the section it guards is one read and one atomic write. Every name is taken in the
// folder opened without following a link (no-follow.ts), and the holder is read without waiting
// on a FIFO planted there: such a lock is busy, and the error names it.

import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { RalphError } from '../errors.js';
import { readTextIfPresent } from '../platform/read-text.js';
import { nameInOwnDirectory } from './no-follow.js';
import { isProcessAlive } from './process-alive.js';

export interface FileLockOptions {
  /** How long to wait for another holder (default 10 s). */
  timeoutMs?: number;
  now?: () => number;
  isAlive?: (pid: number) => boolean;
  /** Blocks the thread for `ms` (tests can count the waits). */
  sleep?: (ms: number) => void;
}

const WAIT_MS = 10;
const pause = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

/** Runs `section` while holding the lock file `lockPath`; the lock is released however it ends. */
export function withFileLock<T>(lockPath: string, section: () => T, options: FileLockOptions = {}): T {
  const now = options.now ?? Date.now;
  const isAlive = options.isAlive ?? isProcessAlive;
  const sleep = options.sleep ?? sleepSync;
  const deadline = now() + (options.timeoutMs ?? 10_000);
  while (!tryCreate(lockPath)) {
    const holder = holderOf(lockPath);
    if (holder !== undefined && holder !== process.pid && !isAlive(holder)) {
      takeOverStale(lockPath);
      continue;
    }
    if (now() >= deadline) {
      throw new RalphError('lock_busy', `${lockPath} is held by another process${holder ? ` (pid ${holder})` : ''}`, {
        hint: `wait for it to finish; if no ralph is running, remove ${lockPath}`,
      });
    }
    sleep(WAIT_MS);
  }
  try {
    return section();
  } finally {
    rmSync(nameInOwnDirectory(lockPath), { force: true });
  }
}

function tryCreate(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(nameInOwnDirectory(lockPath), 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function holderOf(lockPath: string): number | undefined {
  const pid = Number(readTextIfPresent(nameInOwnDirectory(lockPath))?.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

// Renamed away first: of two processes that both found it stale, only one moves it; the other
// finds it gone (or a live holder's new lock) and tries again.
function takeOverStale(lockPath: string): void {
  const lock = nameInOwnDirectory(lockPath);
  const aside = `${lock}.stale-${process.pid}`;
  try {
    renameSync(lock, aside);
  } catch {
    return;
  }
  rmSync(aside, { force: true });
}
