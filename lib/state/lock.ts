// One loop per project: `.ralph/.ralph.lock` holds {pid, startedAt, host}, and while an agent
// runs, its process group and the group leader's start time, so a ralph that finds the lock of a
// dead one (kill -9) can stop the agent it left running. A lock whose process is gone is taken
// over with a warning. The Bash tool has no lock; it ignores this file.

import { closeSync, fsyncSync, linkSync, openSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { systemClock, type Clock } from '../platform/clock.js';
import type { Logger } from '../platform/deps.js';
import { RalphError } from '../errors.js';
import type { RalphPaths } from './paths.js';
import { isProcessAlive, isRalphProcess, readProcessStartTime } from './process-alive.js';
import { removeDeadWritersTempFiles, removeStaleTempFiles, tempFileName, writeFileAtomic } from './atomic-write.js';
import { isRefusedWrite, nameInOwnDirectory, namedByPath, ownDirectory, type OwnDirectory } from './no-follow.js';
import { readTextIfPresent } from '../platform/read-text.js';

export interface LockState {
  pid: number;
  /** ralph's own start time (/proc/<pid>/stat), to tell it from another process with its pid. */
  startTime?: string;
  startedAt: string;
  host: string;
  /** The running agent's process group (its leader's pid), while one runs. */
  agentPgid?: number;
  /** The leader's start time (/proc/<pid>/stat), to tell it from a later process with its pid. */
  agentStartTime?: string;
  /** The leader's executable (/proc/<pid>/exe): with the start time, what proves the group ours. */
  agentExe?: string;
}

export interface AgentGroup {
  pgid: number;
  startTime?: string;
  exe?: string;
}

export interface AcquireLockOptions {
  pid: number;
  logger: Logger;
  isAlive?: (pid: number) => boolean;
  /** Whether the live holder is the ralph it claims to be (default: its start time and command line). */
  isRalph?: (holder: LockState) => boolean;
  /** Defaults to os.hostname(); a lock from another host is never taken over. */
  host?: string;
  /** For `startedAt`. */
  clock?: Clock;
  /** The error for a lock another live process holds (default: another ralph loop's). */
  heldError?: (holder: LockState, where: string) => RalphError;
}

export interface ProjectLock {
  readonly path: string;
  /** The stale lock this one took over (its ralph was gone), if any. */
  readonly previous?: LockState;
  /** Records the agent's process group in the lock (atomically), while the lock is ours. */
  recordAgent(group: AgentGroup): void;
  /** The agent is gone: the lock no longer names a group. */
  clearAgent(): void;
  /** Removes the lock if it still names our pid; safe to call twice. */
  release(): void;
}

const RETRY_PAUSE_MS = 5;
/** How long a start keeps trying: longer than a guard can stay abandoned, so a kill mid-takeover never blocks it. */
const ACQUIRE_WINDOW_MS = 3000;

export function acquireProjectLock(paths: Pick<RalphPaths, 'lock'>, options: AcquireLockOptions): ProjectLock {
  const isAlive = options.isAlive ?? isProcessAlive;
  const host = options.host ?? hostname();
  const isRalph = options.isRalph ?? ((holder: LockState) => isRalphProcess(holder.pid, holder.startTime));
  const startTime = readProcessStartTime(options.pid);
  const mine: LockState = {
    pid: options.pid,
    ...(startTime === undefined ? {} : { startTime }),
    startedAt: new Date((options.clock ?? systemClock).now()).toISOString(),
    host,
  };
  const content = `${JSON.stringify(mine, null, 2)}\n`;
  let previous: LockState | undefined;
  sweepTempFiles(paths.lock);

  const started = Date.now();
  while (Date.now() - started < ACQUIRE_WINDOW_MS) {
    if (createExclusive(paths.lock, content)) {
      // Re-check that the file we made is still the lock (nobody broke it as "stale").
      if (readOwn(paths.lock) !== content) continue;
      // Ours: no other ralph writes here now, so whatever temp file or guard a dead one left can go.
      removeDeadWritersTempFiles(dirname(paths.lock));
      removeAbandonedGuard(`${paths.lock}.break`, isAlive);
      return heldLock(paths.lock, mine, previous);
    }
    const seen = readOwn(paths.lock);
    if (seen === undefined) continue; // released meanwhile: try to create again
    const holder = parseLock(seen);
    const running = holder !== undefined && !isOtherHost(holder, host) && isAlive(holder.pid);
    // A lock the agent forged may name any live process: only a ralph holds the lock.
    const notRalph = running && !isRalph(holder);
    if (holder && (isOtherHost(holder, host) || running) && !notRalph) throw (options.heldError ?? ralphLoopHeld)(holder, hostSuffix(holder, host));
    const broke = withBreakGuard(paths.lock, options.pid, isAlive, () => {
      // Still the very lock we judged stale? Then nobody has taken it over yet.
      if (readOwn(paths.lock) !== seen) return;
      removeOwn(paths.lock);
      previous = holder;
      options.logger.warn(
        !holder
          ? `Took over an unreadable lock file ${paths.lock}`
          : notRalph
            ? `The lock names pid ${holder.pid}, which is running but is not ralph; taking it over as stale`
            : `Took over a stale lock from pid ${holder.pid} (process no longer running)`,
      );
    });
    if (!broke) pauseBriefly();
  }
  throw new RalphError('lock_failed', `Could not acquire the project lock ${paths.lock}`, {
    hint: 'another ralph may be starting in this project; try again',
  });
}

/**
 * Breaking a stale lock is check-then-remove, so two starters could each remove the other's
 * fresh lock. Only the holder of `<lock>.break` (made with O_EXCL) may do it; it is held for
 * microseconds. Returns false when another process holds it.
 */
function withBreakGuard(lock: string, pid: number, isAlive: (pid: number) => boolean, action: () => void): boolean {
  const guard = `${lock}.break`;
  // The guard appears with its owner's pid in it, so a breaker killed at any moment leaves a
  // guard naming a dead pid, or none.
  if (!createExclusive(guard, String(pid))) {
    // Another breaker holds it, or one died mid-takeover. The guard lives for microseconds, so
    // one that stayed for seconds is abandoned whatever it says — its pid may since have been
    // given to a process that lives on, or it may be empty (only where hard links are
    // unsupported, a breaker killed between create and write) — and would otherwise block every
    // start.
    removeAbandonedGuard(guard, isAlive);
    return false;
  }
  try {
    action();
  } finally {
    removeOwn(guard);
  }
  return true;
}

const ABANDONED_GUARD_MS = 2000;

/** Removes the guard when its breaker is dead, or when it has stayed so long it must be abandoned. */
function removeAbandonedGuard(guard: string, isAlive: (pid: number) => boolean): void {
  const owner = readOwn(guard);
  if ((owner && !isAlive(Number(owner))) || isOlderThan(guard, ABANDONED_GUARD_MS)) removeOwn(guard);
}

/**
 * The lock and its guard appear from temp files (createExclusive): a ralph killed between making
 * one and removing it leaves it behind. Each start removes those whose writer is dead, as the
 * atomic writer does for its own (never a live writer's: it may be creating one right now).
 */
function sweepTempFiles(lock: string): void {
  removeStaleTempFiles(lock);
  removeStaleTempFiles(`${lock}.break`);
}

function isOlderThan(path: string, ms: number): boolean {
  try {
    return Date.now() - statSync(nameInOwnDirectory(path)).mtimeMs > ms;
  } catch {
    return false;
  }
}

function pauseBriefly(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_PAUSE_MS);
}

function heldLock(path: string, mine: LockState, previous: LockState | undefined): ProjectLock {
  let released = false;
  const isOurs = () => !released && parseLock(readOwn(path) ?? '')?.pid === mine.pid;
  const write = (state: LockState) => {
    if (isOurs()) writeFileAtomic(path, `${JSON.stringify(state, null, 2)}\n`);
  };
  return {
    path,
    previous,
    recordAgent(group) {
      write({
        ...mine,
        agentPgid: group.pgid,
        ...(group.startTime === undefined ? {} : { agentStartTime: group.startTime }),
        ...(group.exe === undefined ? {} : { agentExe: group.exe }),
      });
    },
    clearAgent() {
      write(mine);
    },
    release() {
      const ours = isOurs();
      released = true;
      if (ours) removeOwn(path);
    },
  };
}

// Another host's pid cannot be checked from here (containers sharing a mounted project).
function isOtherHost(holder: LockState, host: string): boolean {
  return holder.host !== '' && holder.host !== host;
}

/**
 * Throws when a live process holds the lock, without taking it: for a caller about to change
 * files the lock's holder is using. A lock whose process is gone counts as free (and is left
 * for the next acquire to take over, with its agent).
 */
export function assertLockFree(paths: Pick<RalphPaths, 'lock'>, options: { isAlive?: (pid: number) => boolean; host?: string } = {}): void {
  const holder = parseLock(readTextIfPresent(paths.lock) ?? '');
  const host = options.host ?? hostname();
  if (holder && (isOtherHost(holder, host) || (options.isAlive ?? isProcessAlive)(holder.pid))) throw ralphLoopHeld(holder, hostSuffix(holder, host));
}

/**
 * The ralph holding the lock, as a start would judge it: another host's lock, or a live process
 * that is the ralph it claims to be; undefined when the lock is free or stale.
 */
export function runningRalph(paths: Pick<RalphPaths, 'lock'>, host: string = hostname()): LockState | undefined {
  const holder = parseLock(readTextIfPresent(paths.lock) ?? '');
  if (!holder) return undefined;
  return isOtherHost(holder, host) || (isProcessAlive(holder.pid) && isRalphProcess(holder.pid, holder.startTime)) ? holder : undefined;
}

/** Throws when a ralph holds the lock, with `hint` saying what to do instead: for a command that would only start a loop to have it refused (`ralph --monitor`). */
export function assertNoRalphRunning(paths: Pick<RalphPaths, 'lock'>, hint: string, host: string = hostname()): void {
  const holder = runningRalph(paths, host);
  if (holder) throw new RalphError('lock_held', ralphLoopHeld(holder, hostSuffix(holder, host)).message, { exitCode: 1, hint });
}

function hostSuffix(holder: LockState, host: string): string {
  return isOtherHost(holder, host) ? ` on host ${holder.host}` : '';
}

function ralphLoopHeld(holder: LockState, where: string): RalphError {
  return new RalphError('lock_held', `Another ralph loop is already running in this project (pid ${holder.pid}${where})`, {
    exitCode: 1,
    hint: 'stop it first, or remove .ralph/.ralph.lock if you are sure it is gone',
  });
}

/**
 * The lock appears with its full content at once: written to a temp file, then hard-linked to
 * the lock name (link fails if the name exists). Falls back to O_EXCL create where hard links
 * are unsupported.
 */
function createExclusive(path: string, content: string): boolean {
  // Named through the folder's descriptor: .ralph swapped for a link meanwhile changes nothing.
  let dir: OwnDirectory;
  try {
    dir = ownDirectory(dirname(path), false);
  } catch (error) {
    throw isRefusedWrite(error) ? error : lockFailed(path, error);
  }
  const target = join(dir.at, basename(path));
  const tmp = join(dir.at, tempFileName(path));
  try {
    writeFileSync(tmp, content, { flag: 'wx' });
    try {
      linkSync(tmp, target);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
    }
    return createWithExclusiveOpen(target, content);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw lockFailed(path, namedByPath(error, dir, dirname(path)));
  } finally {
    unlinkQuietly(tmp);
  }
}

function lockFailed(path: string, error: unknown): RalphError {
  return new RalphError('lock_failed', `Cannot create the project lock ${path}: ${(error as Error).message}`, {
    cause: error,
    hint: 'check that .ralph/ exists and is writable',
  });
}

function createWithExclusiveOpen(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The lock as its holder wrote it, or undefined when there is none or it is unreadable. */
export function readProjectLock(path: string): LockState | undefined {
  return parseLock(readTextIfPresent(path) ?? '');
}

function parseLock(text: string): LockState | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockState>;
    if (typeof value.pid !== 'number' || !Number.isInteger(value.pid)) return undefined;
    const agent =
      typeof value.agentPgid === 'number' && Number.isInteger(value.agentPgid) && value.agentPgid > 1
        ? {
            agentPgid: value.agentPgid,
            ...(typeof value.agentStartTime === 'string' ? { agentStartTime: value.agentStartTime } : {}),
            ...(typeof value.agentExe === 'string' ? { agentExe: value.agentExe } : {}),
          }
        : {};
    const own = typeof value.startTime === 'string' ? { startTime: value.startTime } : {};
    return { pid: value.pid, startedAt: String(value.startedAt ?? ''), host: String(value.host ?? ''), ...own, ...agent };
  } catch {
    return undefined;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** The lock's (or its guard's) text, read through its folder's descriptor; undefined when there is none. */
function readOwn(path: string): string | undefined {
  try {
    return readTextIfPresent(nameInOwnDirectory(path));
  } catch {
    return undefined;
  }
}

/** Removes the lock (or its guard) through its folder's descriptor, never through a link. */
function removeOwn(path: string): void {
  try {
    unlinkQuietly(nameInOwnDirectory(path));
  } catch {
    // its folder is a link now: nothing of ours to remove there
  }
}
