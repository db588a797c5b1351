// Reads a whole metrics.jsonl into one partial. A large file is cut into line-aligned ranges
// read at the same time — one on this thread, the rest on worker threads — and joined in file
// order, which gives the same result as one sequential read (join-partials.ts).

import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { joinPartials } from './join-partials.js';
import { ALL_FIELDS, BASH_FIELDS, F } from './metrics-fields.js';
import { chartBlockBytes, type MetricsPartial } from './metrics-partial.js';
import { readMetricsRange, splitIntoLineRanges, type ByteRange, type ReadRangeOptions } from './read-metrics-range.js';

/** Below this much per thread, starting a worker costs more than it saves. */
const MIN_BYTES_PER_THREAD = 16 * 1024 * 1024;
const MAX_THREADS = 4;

export interface ReadMetricsFileOptions {
  sinceMs?: number;
  /** Everything the table and full report need, not just the Bash four numbers. */
  detail: boolean;
  /** Upper bound on threads (default: the CPUs available, at most 4). */
  threads?: number;
  /** Bytes each thread must have to be worth starting (default 16 MiB; tests lower it). */
  minBytesPerThread?: number;
}

export async function readMetricsFile(path: string, options: ReadMetricsFileOptions): Promise<MetricsPartial> {
  const size = statSync(path).size;
  const rangeOptions: ReadRangeOptions = {
    detail: options.detail,
    sinceMs: options.sinceMs,
    fields: options.detail ? ALL_FIELDS : options.sinceMs !== undefined ? [...BASH_FIELDS, F.timestamp] : BASH_FIELDS,
    // One block grid for every range, from the size at the start (a running ralph may append).
    chartBlockBytes: chartBlockBytes(size),
  };
  const limit = options.threads ?? Math.min(availableParallelism(), MAX_THREADS);
  const threads = Math.max(1, Math.min(limit, Math.floor(size / (options.minBytesPerThread ?? MIN_BYTES_PER_THREAD))));
  if (threads === 1) return readMetricsRange(path, { start: 0, end: size }, rangeOptions);

  const [own, ...others] = splitIntoLineRanges(path, size, threads);
  // A thread that cannot start or fails leaves its range to this thread: slower, same answer.
  const pending = others.map((range) => readInWorker(path, range, rangeOptions).catch(() => readMetricsRange(path, range, rangeOptions)));
  const first = readMetricsRange(path, own!, rangeOptions);
  const rest = await Promise.all(pending);
  return rest.reduce(joinPartials, first);
}

function readInWorker(path: string, range: ByteRange, options: ReadRangeOptions): Promise<MetricsPartial> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./metrics-worker.js', import.meta.url), { workerData: { path, range, options } });
    worker.once('message', (partial: MetricsPartial) => {
      resolve(partial);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`metrics reader thread exited with code ${code}`));
    });
  });
}
