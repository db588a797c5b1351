// A short lock around one read-modify-write of a file two processes may change at once (the
// queue: `ralph-queue add` while `ralph-queue process` saves an item's status). The lock file is
// created exclusively (O_CREAT|O_EXCL: an existing file or a link there is never followed) and
// holds the owner's pid; a lock whose owner is gone is taken over. Waiting is synchronous and
// short: the section it guards is one read and one atomic write.

import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { RalphError } from '../errors.js';
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
    rmSync(lockPath, { force: true });
  }
}

function tryCreate(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o600);
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
  try {
    const pid = Number(readFileSync(lockPath, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

// Renamed away first: of two processes that both found it stale, only one moves it; the other
// finds it gone (or a live holder's new lock) and tries again.
function takeOverStale(lockPath: string): void {
  const aside = `${lockPath}.stale-${process.pid}`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return;
  }
  rmSync(aside, { force: true });
}
