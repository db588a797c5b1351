// Budget row (docs/performance.md): analysing agent output. Throughput: a large realistic stream-json (recorded lines,
// tool results of 4–64 KB) goes through createLineSplitter + createStreamAccumulator exactly as
// the Claude Code adapter (lib/agents/claude-code.ts) wires them (same skipPrefixes), fed in 64 KiB chunks as a pipe
// delivers them; MB = 10^6 bytes. A second, informational row feeds only lines that must be
// parsed (no tool results). Memory: a child process streams 1 GiB generated on the fly —
// turns, plus 64 MiB tool results that are single lines — and reports its peak RSS.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { row } from './rows.mjs';
import { buildTurns, initLine, resultLine } from './stream-builder.mjs';

const dist = (path) => new URL(`../../dist/${path}`, import.meta.url).href;
const CHILD = fileURLToPath(new URL('./analysis-rss-child.mjs', import.meta.url));
const CHUNK = 64 * 1024;
const THROUGHPUT_BUDGET = 100;
const RSS_BUDGET_MB = 150;

async function throughput(block, passes) {
  const { createLineSplitter, createStreamAccumulator, USER_LINE_PREFIX, STREAM_EVENT_LINE_PREFIX } = await import(dist('agents/stream-json.js'));
  const splitter = createLineSplitter({ skipPrefixes: [USER_LINE_PREFIX, STREAM_EVENT_LINE_PREFIX] });
  const accumulator = createStreamAccumulator();
  const feed = (buffer) => {
    for (let i = 0; i < buffer.length; i += CHUNK) {
      for (const line of splitter.push(buffer.subarray(i, i + CHUNK))) accumulator.push(line);
    }
  };
  const started = performance.now();
  let bytes = 0;
  const head = initLine();
  feed(head);
  bytes += head.length;
  for (let p = 0; p < passes; p++) {
    feed(block);
    bytes += block.length;
  }
  const tail = resultLine();
  feed(tail);
  bytes += tail.length;
  for (const line of splitter.end()) accumulator.push(line);
  const seconds = (performance.now() - started) / 1000;
  const snapshot = accumulator.snapshot();
  if (!snapshot.result || !snapshot.sessionId || snapshot.toolUseCount === 0) throw new Error('the benchmark stream was not read as a run');
  return { mbPerSecond: bytes / 1e6 / seconds, bytes };
}

function peakRss() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', CHILD], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`analysis RSS child exited ${code}`))));
  });
}

export async function benchAnalysis() {
  // Warm up the JIT on a small stream, then measure ~256 MB.
  const mixed = buildTurns(600);
  await throughput(mixed, 2);
  const realistic = await throughput(mixed, Math.ceil(256e6 / mixed.length));
  const parsedOnly = buildTurns(20_000, { toolResults: false });
  const worst = await throughput(parsedOnly, Math.ceil(128e6 / parsedOnly.length));
  const rss = await peakRss();
  return [
    row(
      'analysis throughput, realistic stream-json',
      realistic.mbPerSecond,
      'MB/s',
      THROUGHPUT_BUDGET,
      'min',
      `${Math.round(realistic.bytes / 1e6)} MB in 64 KiB chunks`,
    ),
    row('analysis throughput, parsed lines only (worst case)', worst.mbPerSecond, 'MB/s', THROUGHPUT_BUDGET, 'min', 'informational: no tool results to skip'),
    row(
      'peak RSS analysing a 1 GiB stream',
      rss.peakRssMb,
      'MB',
      RSS_BUDGET_MB,
      'max',
      `${(rss.bytes / 2 ** 30).toFixed(2)} GiB; RSS ${rss.baselineRssMb} MB before it; ${rss.skipped} single-line 64 MiB tool results dropped`,
    ),
  ];
}
