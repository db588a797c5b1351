// What the machine is like today, printed beside the rows so a reader can tell a slow machine from
// slow code. On some virtual machines memory left untouched for a second or two is many times
// slower to walk the first time again (the host reclaims or ages the guest's pages; no page fault
// shows in the guest): the idle-CPU rows (the monitor's frame every 2 s, the web view's looks)
// then pay that on every wake-up, whatever ralph does. This measures it: one walk over ~6 MB of
// small objects straight after another, and one after a 2 s pause (medians of three each).

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
