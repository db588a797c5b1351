// The loop process's V8 settings: after tuneHeapForLongRun a garbage-heavy run keeps the young
// generation at its initial size, where V8's defaults let it grow to 16 MB semi-spaces (part of
// a peak RSS of ~120 MB at 13 MB live in the orchestration bench), and no function is compiled
// by the optimizing compiler (whose code and compile memory grew the RSS over a long run).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transpileForChild } from '../state/child-build.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-heap-'));
  transpileForChild(['platform/heap-tuning.ts'], dir);
  // Loop-like churn: short-lived strings and objects, a small set of survivors replaced over
  // time. Prints the largest young-generation size seen, in MB.
  writeFileSync(
    join(dir, 'churn.mjs'),
    `import { getHeapSpaceStatistics } from 'node:v8';
     import { tuneHeapForLongRun } from './platform/heap-tuning.js';
     if (process.argv[2] === 'tuned') tuneHeapForLongRun();
     const kept = [];
     let young = 0;
     for (let i = 0; i < 4000; i++) {
       const text = JSON.stringify({ loop: i, lines: Array.from({ length: 200 }, (_, j) => 'line ' + j + ' of loop ' + i) });
       kept[i % 500] = JSON.parse(text).lines.slice(0, 20);
       if (i % 100 === 0) for (const s of getHeapSpaceStatistics()) if (s.space_name === 'new_space') young = Math.max(young, s.space_size / 1e6);
     }
     process.stdout.write(JSON.stringify({ young }));`,
  );
  // A function V8 is told to optimize at its next call; prints whether it then runs optimized
  // code (V8's status bit for TurboFan code, read through its test intrinsics).
  writeFileSync(
    join(dir, 'hot.mjs'),
    `import { tuneHeapForLongRun } from './platform/heap-tuning.js';
     if (process.argv[2] === 'tuned') tuneHeapForLongRun();
     const status = new Function('f', 'return %GetOptimizationStatus(f)');
     const prepare = new Function('f', '%PrepareFunctionForOptimization(f)');
     const optimizeNext = new Function('f', '%OptimizeFunctionOnNextCall(f)');
     function add(a, b) { return a + b; }
     prepare(add);
     add(1, 2);
     add(3, 4);
     optimizeNext(add);
     add(5, 6);
     process.stdout.write(JSON.stringify({ optimized: (status(add) & 64) !== 0 }));`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const churn = (mode: string): { young: number } => JSON.parse(execFileSync(process.execPath, [join(dir, 'churn.mjs'), mode], { encoding: 'utf8' }));

const hot = (mode: string): { optimized: boolean } =>
  JSON.parse(execFileSync(process.execPath, ['--allow-natives-syntax', join(dir, 'hot.mjs'), mode], { encoding: 'utf8' }));

describe('tuneHeapForLongRun', () => {
  it('leaves the optimizing compiler off', () => {
    expect(hot('default').optimized).toBe(true);
    expect(hot('tuned').optimized).toBe(false);
  });

  it('keeps the young generation at its initial size under churn', () => {
    const untuned = churn('default');
    const tuned = churn('tuned');
    expect(untuned.young).toBeGreaterThan(4 * tuned.young);
    expect(tuned.young).toBeLessThan(4);
  });
});
