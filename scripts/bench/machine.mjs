// What the machine is like today, printed beside the rows so a reader can tell a slow machine from
// slow code. On some virtual machines memory left untouched for a second or two is many times
// slower to walk the first time again (the host reclaims or ages the guest's pages; no page fault
// shows in the guest): the idle-CPU rows (the monitor's frame every 2 s, the web view's looks)
// then pay that on every wake-up, whatever ralph does. This measures it: one walk over ~6 MB of
// small objects straight after another, and one after a 2 s pause (medians of three each).
//
// And the disk: a loop replaces about 18 state files, each a new temp file renamed over the old
// one. On an ext4 without a journal (this project's bench VM) the inode allocator passes over
// every inode freed in the last one to six minutes, so a machine that has just created and
// deleted many files (a test suite, an earlier bench section) makes each replace several times
// dearer for a while: 70–90 µs of CPU on a quiet disk, 300 µs straight after `npm test`.
// fileReplaceCost() measures it with plain fs calls, the same way the state writer replaces.

import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './rows.mjs';

const OBJECTS = 200_000;
const PAUSE_MS = 2000;

function walk(objects) {
  let sum = 0;
  for (const o of objects) sum += o.i;
  return sum;
}

function timed(objects) {
  const started = performance.now();
  walk(objects);
  return performance.now() - started;
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `{ warmMs, afterPauseMs }`: the same walk straight after the last and after a 2 s pause. */
export async function memoryAfterPause({ quick = false } = {}) {
  const objects = Array.from({ length: OBJECTS }, (_, i) => ({ i }));
  const rounds = quick ? 1 : 3;
  const warm = [];
  const afterPause = [];
  timed(objects);
  for (let i = 0; i < rounds; i++) {
    warm.push(timed(objects));
    await pause(PAUSE_MS);
    afterPause.push(timed(objects));
  }
  return { warmMs: median(warm), afterPauseMs: median(afterPause) };
}

const REPLACES = 200;

/** CPU µs of one small-file replace (write a new temp file, rename it over the file) in the temp folder, median of three rounds. */
export function fileReplaceCost() {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-bench-disk-'));
  try {
    const file = join(dir, 'state.json');
    const text = `${JSON.stringify({ loop: 0, pad: 'x'.repeat(400) }, null, 2)}\n`;
    const rounds = [];
    for (let round = 0; round < 3; round++) {
      const started = process.cpuUsage();
      for (let i = 0; i < REPLACES; i++) {
        const temp = join(dir, `.state.json.tmp-${round}-${i}`);
        writeFileSync(temp, text, { flag: 'wx' });
        renameSync(temp, file);
      }
      const used = process.cpuUsage(started);
      rounds.push((used.user + used.system) / REPLACES);
    }
    return median(rounds);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
