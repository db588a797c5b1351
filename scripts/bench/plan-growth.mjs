// Budget row (docs/performance.md): per-loop cost as the plan and the run grow. The loop child (loop-child.mjs, the real
// loop against an instant fake agent that changes a file each call and ticks nothing) runs side
// by side in one bench run: over plans of 100, 1,000 and 10,000 open items (SIZE_LOOPS loops
// each; per-loop CPU is the median of the loops after the first WARM_UP), and over a 100-item
// plan for 100 and for 1,000 loops (whole-process CPU divided by the loops, start-up included,
// and, inside the long run, loop 10 against its last loops). Each row is a ratio against the
// smaller run, so a loaded machine slows both sides alike.

import { earlyAndLate, median, notMeasured, row } from './rows.mjs';
import { runChild } from './orchestration.mjs';

const SIZES = [100, 1_000, 10_000];
const PLAN_RATIO_BUDGET = 2;
const LOOPS_RATIO_BUDGET = 1.1;
const WARM_UP = 2;
/** A plan size's run is stopped after this long: its loops are then far over budget. */
const SIZE_TIMEOUT_MS = 180_000;

const pick = (list, from, to) => list.slice(from, to + 1).filter((v) => v !== null && v !== undefined);

export async function benchPlanGrowth({ quick = false } = {}) {
  const sizeLoops = quick ? 8 : 16;
  const [shortLoops, longLoops] = quick ? [50, 500] : [100, 1_000];
  // A plan size whose loops take too long is over budget by far: its row says so, and the bench
  // still ends within minutes.
  const perLoop = [];
  for (const items of SIZES) {
    try {
      const r = await runChild(sizeLoops, items, SIZE_TIMEOUT_MS);
      perLoop.push({ ms: median(pick(r.perLoopCpu, WARM_UP + 1, r.loops - 1)) });
    } catch (error) {
      perLoop.push({ failed: error instanceof Error ? error.message : String(error) });
    }
  }
  const [base] = perLoop;
  if (base.failed) return [notMeasured('per-loop CPU as the plan grows', base.failed)];
  const sizeRows = SIZES.slice(1).map((items, i) => {
    const what = `per-loop CPU, ${items.toLocaleString('en')}-item plan ÷ 100-item plan`;
    const size = perLoop[i + 1];
    if (size.failed)
      return { ...notMeasured(what, `${size.failed} (${base.ms.toFixed(1)} ms per loop at 100 items)`), unit: '×', budget: PLAN_RATIO_BUDGET, ok: false };
    return row(
      what,
      size.ms / base.ms,
      '×',
      PLAN_RATIO_BUDGET,
      'max',
      `medians of ${sizeLoops - WARM_UP - 1} loops: ${base.ms.toFixed(1)} ms at 100 items, ${size.ms.toFixed(1)} ms at ${items.toLocaleString('en')}`,
    );
  });
  const tickRow = await benchTickingPlan(sizeLoops);
  const short = await runChild(shortLoops, SIZES[0]);
  const long = await runChild(longLoops, SIZES[0]);
  const shortPerLoop = short.processCpuMs / short.loops;
  const longPerLoop = long.processCpuMs / long.loops;
  const last = long.loops - 1;
  const { window, early, late } = earlyAndLate(long.perLoopCpu, long.loops);
  return [
    ...sizeRows,
    tickRow,
    row(
      `whole-process CPU per loop, ${longLoops.toLocaleString('en')}-loop run ÷ ${shortLoops}-loop run (100-item plan)`,
      longPerLoop / shortPerLoop,
      '×',
      LOOPS_RATIO_BUDGET,
      'max',
      `${shortPerLoop.toFixed(1)} ms per loop over ${short.loops} loops, ${longPerLoop.toFixed(1)} ms over ${long.loops} (start-up included)`,
    ),
    row(
      `per-loop CPU at loop ${last} ÷ loop 10 (100-item plan)`,
      late / early,
      '×',
      LOOPS_RATIO_BUDGET,
      'max',
      `medians of ${window} loops: ${early.toFixed(1)} ms from loop 10, ${late.toFixed(1)} ms up to loop ${last}`,
    ),
  ];
}

/**
 * The same ratio when the agent ticks an item every call, as an honest agent finishing an item a
 * loop does: the plan is parsed again and its memory written whole each loop.
 */
async function benchTickingPlan(loops) {
  const what = 'per-loop CPU, 10,000-item plan ÷ 100-item plan, the agent ticking an item each loop';
  try {
    const small = await runChild(loops, 100, SIZE_TIMEOUT_MS, 'tick');
    const large = await runChild(loops, 10_000, SIZE_TIMEOUT_MS, 'tick');
    if (small.itemsTicked < loops || large.itemsTicked < loops)
      throw new Error(`the agent ticked ${small.itemsTicked} and ${large.itemsTicked} items of ${loops}`);
    const [a, b] = [small, large].map((r) => median(pick(r.perLoopCpu, WARM_UP + 1, r.loops - 1)));
    return row(
      what,
      b / a,
      '×',
      PLAN_RATIO_BUDGET,
      'max',
      `medians of ${loops - WARM_UP - 1} loops: ${a.toFixed(1)} ms at 100 items, ${b.toFixed(1)} ms at 10,000`,
    );
  } catch (error) {
    return { ...notMeasured(what, error instanceof Error ? error.message : String(error)), unit: '×', budget: PLAN_RATIO_BUDGET, ok: false };
  }
}
