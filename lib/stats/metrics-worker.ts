// Worker thread entry: reads one byte range of metrics.jsonl and posts its partial back.
// Started by read-metrics-file.ts for large files; nothing else imports it.

import { parentPort, workerData } from 'node:worker_threads';
import { readMetricsRange, type ByteRange, type ReadRangeOptions } from './read-metrics-range.js';

const { path, range, options } = workerData as { path: string; range: ByteRange; options: ReadRangeOptions };
const partial = readMetricsRange(path, range, options);
parentPort?.postMessage(partial, [partial.durations.buffer as ArrayBuffer]);
