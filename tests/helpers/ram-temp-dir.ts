// npm test's temp folder: a private folder in RAM when the machine has one (/dev/shm on Linux),
// else the usual os.tmpdir(). The suite makes and deletes some ten thousand temp projects, git
// repositories and fake agents' state folders; on a disk file system each of those files costs
// journal and writeback work in the kernel (on 2 cores, a third of the suite's system time), on
// tmpfs none. The global setup points TMPDIR at the folder before any worker starts, so every
// test and every process it starts puts its temp files there, and removes the folder at the end.
//
// A candidate is used only if a script written there can be run: tests write executables into
// their temp folders (fake CLIs, hooks), and some systems mount /dev/shm noexec. The folder's name
// carries the pid of the run that made it: a run killed before its teardown leaves its folder,
// and the next run removes it once that pid is gone. The name is short, as are the folders tests
// make in it: the path of a Unix socket (a private tmux server's) must fit in 108 bytes.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PREFIX = 'ralph-tests-';
/** The suite's temp files peaked at about 45 MB (sampled every 2 s); a container's /dev/shm can be 64 MiB. */
export const MIN_FREE_BYTES = 1024 * 1024 * 1024;

/** A new private folder in the first usable RAM-backed candidate, or undefined when there is none. */
export function makeRamTempDir(candidates: readonly string[] = ['/dev/shm'], minFreeBytes = MIN_FREE_BYTES): string | undefined {
  for (const parent of candidates) {
    if (!isDirectory(parent)) continue;
    removeFoldersOfEndedRuns(parent);
    if (freeBytes(parent) < minFreeBytes) continue;
    let dir: string;
    try {
      dir = mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
    } catch {
      continue;
    }
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

function removeFoldersOfEndedRuns(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^ralph-tests-(\d+)-/.exec(name)?.[1]);
    if (pid > 0 && !isRunning(pid)) rmSync(join(parent, name), { recursive: true, force: true });
  }
}

function freeBytes(path: string): number {
  const stats = statfsSync(path);
  return stats.bavail * stats.bsize;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
