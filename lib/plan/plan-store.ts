// The plan's memory across runs: kept beside ralph's ledger, outside the project where the agent
// cannot write (state/ledger.ts), so an item ticked without measured work, or hidden, stays
// open through Ctrl-C, kill -9, a new run and a fleet job. Loaded once when a run starts,
// written through when the items it holds change (not when only their positions move: the next
// writing is then whole, with them), and changed outside a run only by the user's word
// (`ralph --accept-item`).

import { readLedgerPlan, saveLedgerPlan, saveLedgerPlanChange, type LedgerPlanChange, type LedgerPlanItem } from '../state/plan-memory-file.js';
import type { RalphPaths } from '../state/paths.js';
import type { Logger } from '../platform/deps.js';
import { readControlFile } from '../state/control-file.js';
import { parseFixPlanLines } from './fix-plan.js';
import { reparseFixPlan, type ParsedPlan } from './plan-reparse.js';
import type { MemoryChange } from './plan-check-delta.js';
import {
  checkPlanAgainstMemory,
  emptyPlanMemory,
  itemKeys,
  normalizeItemText,
  normalizedOnce,
  type HiddenItem,
  type PlanMemory,
  type PlanRead,
  type RememberedItem,
} from './plan-memory.js';

/** The plan's memory the ledger holds for the project (empty: none, or no ledger). */
export function loadPlanMemory(paths: RalphPaths, logger: Pick<Logger, 'warn'>): PlanMemory {
  if (!paths.ledger) return emptyPlanMemory();
  const open = readLedgerPlan(paths.ledger, (message) => logger.warn(message));
  return open ? { open: open.map(({ text, position }) => ({ key: normalizeItemText(text), text, position })) } : emptyPlanMemory();
}

// For each ledger, the memory this process last wrote beside it, or one holding the same items
// (texts, in order): a change from it is the change from what the files hold.
const onDisk = new Map<string, PlanMemory>();

/**
 * Writes `next` beside the ledger when the items it holds differ from `previous`'s: as the
 * change from `previous` when that is what this process last wrote there, whole otherwise.
 * `known`: the change from `previous` to `next` when the check knows it (else worked out here).
 */
export function savePlanMemory(paths: RalphPaths, next: PlanMemory, previous: PlanMemory | undefined, known?: MemoryChange): void {
  const ledger = paths.ledger;
  if (!ledger || previous === next) return;
  const change = previous && (known ? asLedgerChange(known) : memoryChange(previous.open, next.open));
  // The files hold `previous` only while its items stand where they were written: an item moved
  // (items added or removed above it) leaves its old position there until the memory is next
  // written, and a change appended then would keep it, so a new run would look for the item
  // where it was (and might take a ticked item of the same text for it).
  const inPlace = previous !== undefined && (known !== undefined || keptInPlace(previous.open, next.open));
  if (previous && !change) {
    if (onDisk.get(ledger) === previous && inPlace) onDisk.set(ledger, next);
    return;
  }
  const whole = () => next.open.map(toLedgerItem);
  if (change && onDisk.get(ledger) === previous && inPlace) saveLedgerPlanChange(ledger, paths.projectDir, change, whole);
  else saveLedgerPlan(ledger, paths.projectDir, whole());
  onDisk.set(ledger, next);
}

/** Whether each item `after` keeps of `before` (as memoryChange pairs them) stands at the position it had. */
function keptInPlace(before: readonly RememberedItem[], after: readonly RememberedItem[]): boolean {
  let next = 0;
  for (const was of before) {
    const now = after[next];
    if (now === undefined || (now !== was && now.key !== was.key)) continue;
    if (now.position !== was.position) return false;
    next++;
  }
  return true;
}

/**
 * What turns `before` into `after` (texts, in order; positions are not kept up): the items
 * dropped, the texts changed, the items added last. Undefined when the texts are the same.
 */
export function memoryChange(before: readonly RememberedItem[], after: readonly RememberedItem[]): LedgerPlanChange | undefined {
  const change: LedgerPlanChange = { drop: [], set: [], add: [] };
  let next = 0;
  for (let i = 0; i < before.length; i++) {
    const was = before[i]!;
    const now = after[next];
    if (now !== undefined && (now === was || now.key === was.key)) {
      if (now.text !== was.text) change.set.push([i, now.text]);
      next++;
    } else {
      change.drop.push(i);
    }
  }
  change.add = after.slice(next).map(toLedgerItem);
  return change.drop.length + change.set.length + change.add.length > 0 ? change : undefined;
}

/**
 * The plan as a run reads it: a view, none (no file), or a file ralph will not read in full (a
 * directory, a FIFO, a file over the size limit, a link out of the project): a plan not done.
 */
export function readPlanForMemory(paths: RalphPaths, optionalSections: string[]): PlanRead {
  return readPlanAgain(paths, optionalSections, undefined).read;
}

/** One reading of the plan: the text ralph read (undefined: no file, or none it would read) and what it made of it. */
export interface PlanReading {
  readonly text: string | undefined;
  readonly optionalSections: readonly string[];
  readonly read: PlanRead;
  /** The parse behind `read`, which the next reading of a changed text reuses. */
  readonly parsed?: ParsedPlan;
}

/**
 * Reads the plan again. When the text is the one `last` read (with the same optional sections),
 * `last` itself comes back: the plan is parsed and its items normalised only when the text
 * changed, and then only the lines that changed when they cannot change how others read
 * (plan-reparse.ts). The text is read every time, never judged by the file's times.
 */
export function readPlanAgain(paths: RalphPaths, optionalSections: readonly string[], last: PlanReading | undefined): PlanReading {
  let text: string | undefined;
  try {
    text = readControlFile(paths.fixPlan, { projectDir: paths.projectDir });
  } catch (error) {
    return { text: undefined, optionalSections, read: { unreadable: (error as Error).message } };
  }
  const same = last !== undefined && 'view' in last.read && last.optionalSections === optionalSections;
  if (same && last.text === text) return last;
  if (text === undefined) return { text, optionalSections, read: { view: null, keys: [] } };
  const parsed = (same && last.parsed && reparseFixPlan(last.parsed, text, normalizedOnce)) || parseWhole(text, optionalSections);
  return { text, optionalSections, read: { view: parsed.view, keys: parsed.keys, ...(parsed.change ? { change: parsed.change } : {}) }, parsed };
}

let wholeParses = 0;

/** How many plans readPlanAgain has parsed whole in this process (a test sees a changed line reuse the rest). */
export function wholeParseCount(): number {
  return wholeParses;
}

function parseWhole(text: string, optionalSections: readonly string[]): ParsedPlan {
  wholeParses++;
  const { view, lines } = parseFixPlanLines(text, optionalSections);
  return { text, view, keys: itemKeys(view.items), lines };
}

/**
 * Outside a run: the items ralph counts as open although the plan shows them otherwise (ticked
 * with no measured change, removed, moved under an optional section), in the memory's order —
 * the numbers `ralph --status` shows and `ralph --accept-item` takes.
 */
export function heldOpenItems(paths: RalphPaths, optionalSections: string[], logger: Pick<Logger, 'warn'>): { memory: PlanMemory; held: HiddenItem[] } {
  const memory = loadPlanMemory(paths, logger);
  if (memory.open.length === 0) return { memory, held: [] };
  const read = readPlanForMemory(paths, optionalSections);
  // Read as a run's first look reads it: no loop has measured new content yet.
  const held = 'unreadable' in read ? [] : checkPlanAgainstMemory(memory, read, false).hidden;
  return { memory, held };
}

/** A new plan written by ralph itself (a queue item, a fleet issue): what was open in the plan before it is no more. */
export function forgetPlanMemory(paths: RalphPaths): void {
  if (!paths.ledger) return;
  saveLedgerPlan(paths.ledger, paths.projectDir, []);
  onDisk.delete(paths.ledger);
}

/** What `ralph --accept-item` names: an item by its number in the list ralph shows (1-based), or by its text. */
export type ItemSelector = { number: number } | { text: string };

export function parseItemSelector(value: string): ItemSelector {
  const trimmed = value.trim();
  return /^[1-9]\d{0,6}$/.test(trimmed) ? { number: Number(trimmed) } : { text: trimmed };
}

export type HeldItemMatch = { kind: 'found'; item: HiddenItem } | { kind: 'not-found' } | { kind: 'ambiguous'; matches: HiddenItem[] };

/**
 * The item the user names among `held` (the items ralph counts as open against what the plan
 * shows, numbered from 1 as `ralph --status` lists them): by its number, by its text (as ralph
 * normalises it), or by a part of its text that names one item only.
 */
export function findHeldItem(held: readonly HiddenItem[], selector: ItemSelector): HeldItemMatch {
  if ('number' in selector) {
    const item = held[selector.number - 1];
    return item ? { kind: 'found', item } : { kind: 'not-found' };
  }
  const key = normalizeItemText(selector.text);
  if (key === '') return { kind: 'not-found' };
  const same = held.find((candidate) => candidate.key === key);
  if (same) return { kind: 'found', item: same };
  const matches = held.filter((candidate) => candidate.key.includes(key));
  if (matches.length > 1) return { kind: 'ambiguous', matches };
  return matches[0] ? { kind: 'found', item: matches[0] } : { kind: 'not-found' };
}

/** The memory without one remembered item of `item`'s text: the user counts it as done. */
export function withoutItem(memory: PlanMemory, item: HiddenItem): PlanMemory {
  const at = memory.open.findIndex((remembered) => remembered.key === item.key);
  return { open: memory.open.filter((_, i) => i !== at) };
}

function asLedgerChange(change: MemoryChange): LedgerPlanChange | undefined {
  const { drop, set, add } = change;
  return drop.length + set.length + add.length > 0 ? { drop, set, add: add.map(toLedgerItem) } : undefined;
}

function toLedgerItem(item: RememberedItem): LedgerPlanItem {
  return { text: item.text, position: item.position };
}
