// A reading of the machine's own clock that a wall-clock jump cannot move: the boot id and the
// seconds since boot (Linux /proc). Two readings of one boot tell how much real time passed
// between them whatever `date` says; elsewhere there is no reading and the wall clock is used.

import { readFileSync } from 'node:fs';

export interface BootReading {
  bootId: string;
  uptimeMs: number;
}

/** This boot's id and uptime, or undefined where /proc does not offer them. */
export function readBootReading(): BootReading | undefined {
  try {
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const uptimeMs = Math.round(Number(readFileSync('/proc/uptime', 'utf8').split(/\s+/)[0]) * 1000);
    return bootId && Number.isFinite(uptimeMs) ? { bootId, uptimeMs } : undefined;
  } catch {
    return undefined;
  }
}
