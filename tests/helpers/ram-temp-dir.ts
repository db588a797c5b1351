// vitest's temp folder in `npm test`: a private folder in RAM when the machine has one
// (/dev/shm on Linux), else the usual os.tmpdir(). The suite makes and deletes some ten thousand
// temp projects, git repositories and fake agents' state folders; on a disk file system each of
// those files costs journal and writeback work in the kernel (on 2 cores, a third of the suite's
// system time), on tmpfs none. The global setup points TMPDIR at the folder before any worker
// starts, so every test and every process it starts puts its temp files there.
//
// A candidate is used only if it has room to spare and a script written there can be run: tests
// write executables into their temp folders (fake CLIs, hooks), and some systems mount /dev/shm
// noexec or small. The folder is open to all like /tmp (mode 1777): some tests run ralph as
// another user. Its name carries the pid of the run that made it; a run killed with -9 leaves
// it, and a later run removes it once that pid is gone and the folder has been still for a while
// (a run in another pid namespace sharing /dev/shm looks gone, but its folder keeps changing).
// The names of folders made in it are short: the path of a Unix socket (a private tmux
// server's, some four folders down) must fit in 108 bytes.

import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive } from '../../lib/state/process-alive.js';

const PREFIX = 'ralph-tests-';
const OF_A_RUN = new RegExp(`^${PREFIX}(\\d+)-`);
/** The suite's temp files peaked at about 45 MB (sampled every 2 s); a container's /dev/shm can be 64 MiB. */
export const MIN_FREE_BYTES = 1024 * 1024 * 1024;
/** How long a folder of an ended run must have been unchanged before it is removed. */
const STILL_FOR_MS = 10 * 60_000;

export interface RamTempDirOptions {
  candidates?: readonly string[];
  minFreeBytes?: number;
  now?: number;
}

/** A new private folder in the first usable RAM-backed candidate, or undefined when there is none. */
export function makeRamTempDir(options: RamTempDirOptions = {}): string | undefined {
  for (const parent of options.candidates ?? ['/dev/shm']) {
    if (!isDirectory(parent)) continue;
    removeFoldersOfEndedRuns(parent, options.now ?? Date.now());
    if (freeBytes(parent) < (options.minFreeBytes ?? MIN_FREE_BYTES)) continue;
    let dir: string;
    try {
      dir = mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
    } catch {
      continue;
    }
    chmodSync(dir, 0o1777);
    if (canRunScriptsIn(dir)) return dir;
    rmSync(dir, { recursive: true, force: true });
  }
  return undefined;
}

function canRunScriptsIn(dir: string): boolean {
  const probe = join(dir, 'probe');
  writeFileSync(probe, '#!/bin/sh\nexit 0\n');
  chmodSync(probe, 0o755);
  const ran = spawnSync(probe, [], { stdio: 'ignore' });
  rmSync(probe, { force: true });
  return ran.status === 0;
}

/** Our own folders (same user) of runs whose pid has ended, unchanged for STILL_FOR_MS. */
function removeFoldersOfEndedRuns(parent: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const pid = Number(OF_A_RUN.exec(name)?.[1]);
    if (!pid || pid === process.pid || isProcessAlive(pid)) continue;
    const path = join(parent, name);
    try {
      const stats = lstatSync(path);
      if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid) || now - stats.mtimeMs < STILL_FOR_MS) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone meanwhile, or not ours to remove after all: it stays.
    }
  }
}

function freeBytes(path: string): number {
  const stats = statfsSync(path);
  return stats.bavail * stats.bsize;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
