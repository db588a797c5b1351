// The work units of `ralph --parallel`: each blocking open top-level item of fix_plan.md, with
// its sub-items. An item that needs another one first says so at its end:
// `- [ ] Add the API docs (after: add the API)` — the words name the other item (a unique
// case-insensitive match of its text). A missing or ambiguous name, or a cycle, is an error
// before anything starts. Pure: the caller reads the file.

import { parseFixPlan } from '../plan/fix-plan.js';
import { findCycle } from '../text/find-cycle.js';

export interface PlanUnit {
  /** Folder and branch name: the item's words, lowercase, dashed, unique in the plan. */
  slug: string;
  /** The item's text without its `(after: …)` clause. */
  item: string;
  /** The item's line as written, and the lines of its sub-items. */
  lines: string[];
  /** 1-based line of the item in fix_plan.md. */
  line: number;
  /** Slugs of the open units that must be merged first. */
  after: string[];
}

export type PlanUnitsResult = { ok: true; units: PlanUnit[] } | { ok: false; problem: string };

const AFTER = /\s*\(after:\s*([^)]*)\)\s*$/i;
const ITEM_MARK = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[([ xX])\][ \t]*/;

/** The units of a plan, or the first problem found in their dependencies. */
export function findPlanUnits(text: string, optionalSections: string[] = []): PlanUnitsResult {
  const view = parseFixPlan(text, optionalSections);
  const lines = text.split(/\r?\n/);
  const indentOf = (line: number) => /^[ \t]*/.exec(lines[line - 1] ?? '')![0].replace(/\t/g, '    ').length;
  const top = view.items.length === 0 ? 0 : Math.min(...view.items.map((it) => indentOf(it.line)));
  const tops = view.items.filter((it) => indentOf(it.line) === top);
  const named: Array<{ text: string; done: boolean; optional: boolean; after?: string; line: number }> = tops.map((it) => {
    const match = AFTER.exec(it.text);
    return { text: match ? it.text.slice(0, match.index).trim() : it.text, done: it.done, optional: it.optional, after: match?.[1]?.trim(), line: it.line };
  });
  const open = named.filter((it) => !it.done && !it.optional);
  const slugs = assignSlugs(open.map((it) => it.text));
  const units: PlanUnit[] = [];
  for (const [index, it] of open.entries()) {
    const after: string[] = [];
    if (it.after !== undefined) {
      const found = findNamedItem(named, it.after, it.line);
      if (!found.ok) return { ok: false, problem: `fix_plan.md line ${it.line}: (after: ${it.after}) ${found.problem}` };
      const target = open.indexOf(found.item as (typeof open)[number]);
      // An item already done (or optional) needs no waiting.
      if (target >= 0) after.push(slugs[target]!);
    }
    units.push({ slug: slugs[index]!, item: it.text, lines: itemBlock(lines, it.line, top, indentOf), line: it.line, after });
  }
  const cycle = findUnitCycle(units);
  if (cycle) return { ok: false, problem: `fix_plan.md: the (after: …) clauses make a cycle: ${cycle.join(' → ')}` };
  return { ok: true, units };
}

function findNamedItem<T extends { text: string; line: number }>(
  items: T[],
  words: string,
  from: number,
): { ok: true; item: T } | { ok: false; problem: string } {
  const wanted = normalizeWords(words);
  if (wanted === '') return { ok: false, problem: 'names no item' };
  const exact = items.filter((it) => it.line !== from && normalizeWords(it.text) === wanted);
  const matches = exact.length > 0 ? exact : items.filter((it) => it.line !== from && normalizeWords(it.text).includes(wanted));
  if (matches.length === 1) return { ok: true, item: matches[0]! };
  if (matches.length === 0) return { ok: false, problem: 'matches no other top-level item of the plan' };
  return { ok: false, problem: `matches ${matches.length} items (lines ${matches.map((m) => m.line).join(', ')}); use more of the item's words` };
}

function normalizeWords(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The item's line and the lines under it that are indented deeper (its sub-items and notes). */
function itemBlock(lines: string[], line: number, top: number, indentOf: (line: number) => number): string[] {
  const block = [lines[line - 1]!];
  for (let n = line + 1; n <= lines.length; n++) {
    const text = lines[n - 1]!;
    if (text.trim() === '') {
      block.push(text);
      continue;
    }
    if (indentOf(n) <= top) break;
    block.push(text);
  }
  while (block.length > 1 && block[block.length - 1]!.trim() === '') block.pop();
  return block;
}

/** Slugs from the items' words: lowercase ASCII letters and digits, dashed, at most 40 characters, unique. */
export function assignSlugs(items: string[]): string[] {
  const taken = new Set<string>();
  return items.map((text) => {
    const base =
      text
        .normalize('NFKD')
        .replace(/\p{M}+/gu, '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 40)
        .replace(/-+$/, '') || 'item';
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    taken.add(slug);
    return slug;
  });
}

/** A dependency cycle as slugs (first repeated at the end), or undefined. */
export function findUnitCycle(units: Pick<PlanUnit, 'slug' | 'after'>[]): string[] | undefined {
  return findCycle(new Map(units.map((unit) => [unit.slug, unit.after])));
}

/** The units in an order that respects `after` (plan order otherwise): waves of units that can run together. */
export function orderUnits(units: Pick<PlanUnit, 'slug' | 'after'>[]): string[][] {
  const waves: string[][] = [];
  const placed = new Set<string>();
  while (placed.size < units.length) {
    const wave = units.filter((u) => !placed.has(u.slug) && u.after.every((a) => placed.has(a))).map((u) => u.slug);
    if (wave.length === 0) break;
    wave.forEach((slug) => placed.add(slug));
    waves.push(wave);
  }
  return waves;
}

/** The item's text as the plan line shows it, without the checkbox. */
export function stripItemMark(line: string): string {
  return line.replace(ITEM_MARK, '');
}
