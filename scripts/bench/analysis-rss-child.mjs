// Child process of the analysis benchmark: streams just over 1 GiB of stream-json, generated on the fly
// and never held whole, through the line splitter and accumulator as the Claude Code adapter wires them,
// and prints its peak RSS (process.resourceUsage().maxRSS) as JSON.

import { buildTurns, giantToolResult, initLine, resultLine } from './stream-builder.mjs';

const dist = (path) => new URL(`../../dist/${path}`, import.meta.url).href;
const { createLineSplitter, createStreamAccumulator, USER_LINE_PREFIX, STREAM_EVENT_LINE_PREFIX } = await import(dist('agents/stream-json.js'));

const TOTAL = 1024 * 1024 * 1024;
const CHUNK = 64 * 1024;
const GIANT = 64 * 1024 * 1024;

const splitter = createLineSplitter({ skipPrefixes: [USER_LINE_PREFIX, STREAM_EVENT_LINE_PREFIX] });
const accumulator = createStreamAccumulator();
let sent = 0;
let lines = 0;
const feed = (chunk) => {
  sent += chunk.length;
  for (const line of splitter.push(chunk)) {
    accumulator.push(line);
    lines++;
  }
};

const block = buildTurns(100);
globalThis.gc?.();
const baselineRssMb = process.memoryUsage().rss / 1e6;
feed(initLine());
let round = 0;
while (sent < TOTAL) {
  for (let i = 0; i < block.length; i += CHUNK) feed(block.subarray(i, i + CHUNK));
  // Every 64 rounds, a single 64 MiB tool-result line (a huge file read): dropped as it streams.
  if (++round % 48 === 0) for (const piece of giantToolResult(GIANT, CHUNK)) feed(piece);
}
feed(resultLine());
for (const line of splitter.end()) accumulator.push(line);
const snapshot = accumulator.snapshot();
if (!snapshot.result) throw new Error('stream not read to its result');
process.stdout.write(
  JSON.stringify({
    peakRssMb: Number(((process.resourceUsage().maxRSS * 1024) / 1e6).toFixed(1)),
    baselineRssMb: Number(baselineRssMb.toFixed(1)),
    bytes: sent,
    lines,
    skipped: splitter.skippedLines,
  }),
);
