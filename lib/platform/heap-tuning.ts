// V8 settings for ralph's process, made for the long-running loop (lib/cli/ralph/ralph.ts
// applies them before the loop's modules load). The loop's live heap is small (~11 MB after a full GC, flat over
// 1,000 loops) but every loop allocates short-lived garbage (agent output, state texts,
// child-process plumbing). With V8's defaults the young generation doubles each time enough
// survives, up to 16 MB semi-spaces, and the old generation may grow to several times its live
// size before a full GC: peak RSS reached ~120 MB with 13 MB live. Both growth factors are read
// whenever V8 sizes the heap, so they can be set from inside the process (bin/ralph takes no
// node flags). Measured on the orchestration bench: peak RSS ~120 → ~80-85 MB, no measurable
// CPU cost (a scavenge of a 1 MB young generation with a few KB alive is cheap, and fork() of a
// smaller process is cheaper).
//
// The optimizing compiler (TurboFan) is left off. A loop runs a little of a lot of code —
// options, state files, analysis, git — once a loop, so over hundreds of loops most of it grows
// warm enough to be optimized, each function's optimized code and compile memory kept for the
// rest of the run, while nothing gains time from it: the loop's CPU goes to system calls, child
// processes and Node's built-ins (JSON, regular expressions, Buffer search), which are compiled
// ahead of time; ralph's own code still runs on the baseline compiler (Sparkplug). Measured
// over 1,000 loops of the shipped bin/ralph: peak RSS 84 → 72 MB, flat from loop 100 (68 MB)
// on; the price is about 3 ms more of ralph's CPU per loop (~20 ms) and slower JavaScript-heavy
// work (analysing output made only of lines to parse: about half the speed, still over 100 MB/s).
// Raising V8's interrupt budget (fewer functions optimized) kept the CPU but left the peak at
// 79-80 MB and still growing. The other tiers beside --no-opt did not lower the CPU either
// (1,000 loops each of the shipped bin/ralph, one after another on a loaded machine: 19.5 ms a
// loop as it is, 21.2 with Maglev, 20.4 with Sparkplug from a function's first call, the latter
// 2 MB more RSS).

import { setFlagsFromString } from 'node:v8';

const LOOP_HEAP_FLAGS = ['--semi-space-growth-factor=1', '--heap-growing-percent=30', '--no-opt'];

/** Keeps the young generation at its initial size and the old one close to its live size; no optimizing compiler. */
export function tuneHeapForLongRun(): void {
  for (const flag of LOOP_HEAP_FLAGS) setFlagsFromString(flag);
}
