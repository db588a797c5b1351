// Items that need no code change ("Verify …", item-evidence.ts), ticked in a loop with no new
// content, are closed when the verification gate passes on the code as that loop left it: the
// gate's pass is the evidence ralph checked itself. Pure.

import type { PlanMemory } from './plan-memory.js';

/** The memory without the open items named by `texts` (as remembered), and the keys of those that left it. */
export function closeVerifiedItems(memory: PlanMemory, texts: readonly string[]): { memory: PlanMemory; closedKeys: string[] } {
  const closing = new Set(texts);
  const open = memory.open.filter((item) => !closing.has(item.text));
  return { memory: { open }, closedKeys: memory.open.filter((item) => closing.has(item.text)).map((item) => item.key) };
}

/**
 * The keys of `completed` not completed before in the run, added to `done`: an item ticked,
 * unticked and ticked again is progress once, not every time.
 */
export function firstCompletions(done: Set<string>, completed: readonly string[]): string[] {
  const fresh = completed.filter((key) => !done.has(key));
  for (const key of fresh) done.add(key);
  return fresh;
}

/** `2 items that need no code change closed by the verification gate: a; b` — one line for the log. */
export function describeVerifiedItems(texts: readonly string[]): string {
  const n = texts.length;
  return `${n} item${n === 1 ? '' : 's'} that need${n === 1 ? 's' : ''} no code change closed by the verification gate: ${texts.map((t) => t.slice(0, 80)).join('; ')}`;
}
