// Joins the partials of two neighbouring stretches of metrics.jsonl (a before b) into the
// partial a single sequential read would have produced. Only the seam needs care: a run that
// goes on across it is one run, and b's first cost is a step from a's last cumulative cost.

import type { ChartBlocks, MetricsPartial } from './metrics-partial.js';

export function joinPartials(a: MetricsPartial, b: MetricsPartial): MetricsPartial {
  if (!b.edge.hasLines) return { ...a, skipped: a.skipped + b.skipped };
  if (!a.edge.hasLines) return { ...b, skipped: a.skipped + b.skipped };
  const ea = a.edge;
  const eb = b.edge;
  const continues = !(eb.firstLoop !== null && ea.lastLoop !== null && eb.firstLoop <= ea.lastLoop);

  let runs = a.runs + b.runs;
  let costFix = 0;
  if (continues) {
    if (ea.lastRunKept && eb.firstSegmentCounted) runs--;
    const stepped = eb.firstKept && eb.firstCostFromCum && !Number.isNaN(ea.lastCum) && eb.firstCum >= ea.lastCum;
    if (stepped && b.costLines > 0) costFix = ea.lastCum;
  }
  const blocksB: ChartBlocks = { ...b.blocks, cost: [...b.blocks.cost] };
  if (costFix !== 0 && blocksB.cost.length > 0) blocksB.cost[0]! -= costFix;

  const durations = new Float64Array(a.durationCount + b.durationCount);
  durations.set(a.durations.subarray(0, a.durationCount));
  durations.set(b.durations.subarray(0, b.durationCount), a.durationCount);

  return {
    lines: a.lines + b.lines,
    skipped: a.skipped + b.skipped,
    successful: a.successful + b.successful,
    durationSum: a.durationSum + b.durationSum,
    callsSum: a.callsSum + b.callsSum,
    durations,
    durationCount: durations.length,
    runs,
    cost: a.cost + b.cost - costFix,
    costLines: a.costLines + b.costLines,
    tokens: {
      input: a.tokens.input + b.tokens.input,
      output: a.tokens.output + b.tokens.output,
      cacheRead: a.tokens.cacheRead + b.tokens.cacheRead,
      cacheCreation: a.tokens.cacheCreation + b.tokens.cacheCreation,
      total: a.tokens.total + b.tokens.total,
    },
    tokenLines: a.tokenLines + b.tokenLines,
    files: a.files + b.files,
    fileLines: a.fileLines + b.fileLines,
    exitSignals: a.exitSignals + b.exitSignals,
    outcomes: addCounts(a.outcomes, b.outcomes),
    tests: addCounts(a.tests, b.tests),
    firstMs: a.lines > 0 ? a.firstMs : b.firstMs,
    lastMs: b.lines > 0 ? b.lastMs : a.lastMs,
    blocks: joinBlocks(a.blocks, blocksB),
    edge: {
      hasLines: true,
      firstLoop: ea.firstLoop,
      firstCum: ea.firstCum,
      firstKept: ea.firstKept,
      firstCostFromCum: ea.firstCostFromCum,
      firstSegmentCounted: ea.innerRunStart ? ea.firstSegmentCounted : ea.firstSegmentCounted || (continues && eb.firstSegmentCounted),
      innerRunStart: ea.innerRunStart || eb.innerRunStart || !continues,
      lastLoop: eb.lastLoop,
      lastCum: eb.lastCum,
      lastRunKept: continues && !eb.innerRunStart ? ea.lastRunKept || eb.lastRunKept : eb.lastRunKept,
    },
  };
}

// A block cut by the seam (a line of it in each stretch) becomes one block again.
function joinBlocks(a: ChartBlocks, b: ChartBlocks): ChartBlocks {
  const shared = a.index.length > 0 && b.index.length > 0 && a.index[a.index.length - 1] === b.index[0] ? 1 : 0;
  const join = (x: number[], y: number[]): number[] => {
    const out = [...x, ...y.slice(shared)];
    if (shared) out[x.length - 1]! += y[0]!;
    return out;
  };
  return {
    index: [...a.index, ...b.index.slice(shared)],
    lines: join(a.lines, b.lines),
    successful: join(a.successful, b.successful),
    files: join(a.files, b.files),
    cost: join(a.cost, b.cost),
  };
}

function addCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [key, n] of Object.entries(b)) out[key] = (out[key] ?? 0) + n;
  return out;
}
