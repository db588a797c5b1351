// A reading of the machine's own clock that a wall-clock jump cannot move: the boot id and the
// seconds since boot (Linux /proc). Two readings of one boot tell how much real time passed
// between them whatever `date` says; elsewhere there is no reading and the wall clock is used.
// The boot id cannot change while this process lives, so it is read once; the uptime each time.

import { readFileSync } from 'node:fs';

export interface BootReading {
  bootId: string;
  uptimeMs: number;
}

const BOOT_ID = '/proc/sys/kernel/random/boot_id';
const UPTIME = '/proc/uptime';

/** A reader of boot readings over `readText` (a file's text; it throws where the file is missing). */
export function createBootReader(readText: (path: string) => string): () => BootReading | undefined {
  let bootId: string | undefined;
  return () => {
    try {
      bootId ??= readText(BOOT_ID).trim();
      const uptimeMs = Math.round(Number(readText(UPTIME).split(/\s+/)[0]) * 1000);
      return bootId && Number.isFinite(uptimeMs) ? { bootId, uptimeMs } : undefined;
    } catch {
      return undefined;
    }
  };
}

/** This boot's id and uptime, or undefined where /proc does not offer them. */
export const readBootReading = createBootReader((path) => readFileSync(path, 'utf8'));
