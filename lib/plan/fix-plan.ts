// fix_plan.md as the machine evidence of what is left to do (the exit gate reads it), read the
// way users write it: GitHub task-list items (`-`, `*`, `+`, `1.`, `1)`), headings as sections,
// open items under OPTIONAL_SECTIONS headings not blocking completion (#239), and nothing inside
// a fenced code block counted as an item or a heading. Every reader of the plan (exit gate, loop
// context, run record, dry run, monitor, --status) goes through parseFixPlan, so "progress" has
// one meaning: blocking items are what is done and what remains; optional ones are shown apart.
// Pure: the caller reads the file.

export interface PlanItem {
  text: string;
  done: boolean;
  /** Under an optional section: does not block completion. */
  optional: boolean;
  /** 1-based line number. */
  line: number;
  /** Title of the innermost heading above it, or null before the first heading. */
  section: string | null;
}

export interface PlanSection {
  title: string;
  level: number;
  optional: boolean;
  line: number;
}

export interface PlanCounts {
  open: number;
  done: number;
}

export interface PlanView {
  /** Items that must be done: they drive done / remaining / the gap everywhere. */
  blocking: PlanCounts;
  /** Items under optional sections, shown apart; they never block completion. */
  optional: PlanCounts;
  /** The text of each blocking open item, in file order. */
  openItems: string[];
  items: PlanItem[];
  sections: PlanSection[];
  /** Line of a code fence that is never closed, or null (its items count as blocking). */
  unclosedFenceLine: number | null;
}

// A GitHub task-list item: a list marker, then `[ ]`, `[x]` or `[X]`. Not items (#144):
// `-[ ]`, `- [  ]`, `[2026-01-29]`, `- [NOTE]`, `- [v1.0]`, `- [#123]`. The `s` flag: without
// it `.` stops at U+2028/U+2029, and an open item holding one would not count at all.
const ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[([ xX])\](.*)$/s;
// ATX heading, indented at most 3 spaces; `#tag` (no space) is not one.
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/s;
// CommonMark fences: 3+ backticks or tildes, indented at most 3 spaces; a backtick fence's
// info string has no backtick. It closes on a line of the same character, at least as long.
const FENCE_OPEN = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

export function parseFixPlan(text: string, optionalSections: readonly string[] = []): PlanView {
  return parseFixPlanLines(text, optionalSections).view;
}

/**
 * Where each line of a parsed text starts (`starts`, one more entry: the text's length plus one)
 * and whether it lies in a fence (`fenced`: 0 no, 1 a closed fence, 2 a fence never closed): what
 * a reading of a text changed in a few lines needs to reuse the rest of the parse (plan-reparse.ts).
 */
export interface PlanLines {
  readonly starts: Uint32Array;
  readonly fenced: Uint8Array;
}

/** parseFixPlan, with the lines' offsets and fences. */
export function parseFixPlanLines(text: string, optionalSections: readonly string[] = []): { view: PlanView; lines: PlanLines } {
  const optional = new Set(optionalSections.map((name) => name.trim().toLowerCase()).filter(Boolean));
  const lines = text.split(/\r?\n/);
  const fenced = findFencedLines(lines);
  const view: PlanView = {
    blocking: { open: 0, done: 0 },
    optional: { open: 0, done: 0 },
    openItems: [],
    items: [],
    sections: [],
    unclosedFenceLine: fenced.unclosedAt,
  };
  // Level of the heading that opened the optional section we are in; it covers deeper
  // headings and ends at the next heading of the same or a higher level.
  let optionalLevel: number | null = null;
  let section: string | null = null;

  lines.forEach((line, index) => {
    const where = fenced.kinds[index];
    if (where === 'closed') return;
    const heading = where === 'open' ? null : HEADING.exec(line);
    if (heading) {
      const level = heading[1]?.length ?? 1;
      const title = headingTitle(heading[2] ?? '');
      if (optionalLevel !== null && level <= optionalLevel) optionalLevel = null;
      if (optionalLevel === null && optional.has(title.toLowerCase())) optionalLevel = level;
      section = title;
      view.sections.push({ title, level, optional: optionalLevel !== null, line: index + 1 });
      return;
    }
    // A fence never closed may be a forgotten closing line: its items count, and as blocking,
    // so that a typo can never make an open plan look done.
    const item = readItemLine(line, index + 1, section, optionalLevel !== null && where !== 'open');
    if (item) addItem(view, item);
  });
  return { view, lines: lineIndex(text, lines, fenced.kinds) };
}

/** The item a line holds (`- [ ] text`), or null. */
export function readItemLine(line: string, lineNumber: number, section: string | null, optional: boolean): PlanItem | null {
  const item = ITEM.exec(line);
  if (!item) return null;
  return { text: (item[2] ?? '').trim(), done: item[1] !== ' ', optional, line: lineNumber, section };
}

/** Counts `item` in the view and adds it last. */
function addItem(view: PlanView, item: PlanItem): void {
  view.items.push(item);
  countItem(view, item, 1);
  if (!item.done && !item.optional) view.openItems.push(item.text);
}

/** Adds `by` (1, or -1 to take it out) to the view's count of items like `item`. */
export function countItem(view: PlanView, item: PlanItem, by: 1 | -1): void {
  const counts = item.optional ? view.optional : view.blocking;
  if (item.done) counts.done += by;
  else counts.open += by;
}

/** A line that may open or close a fence or be a heading: a change to it may change how every later line reads. */
export function mayShapePlan(line: string): boolean {
  return HEADING.test(line) || FENCE_OPEN.test(line) || FENCE_CLOSE.test(line);
}

function lineIndex(text: string, lines: readonly string[], kinds: readonly FenceKind[]): PlanLines {
  const starts = new Uint32Array(lines.length + 1);
  const fenced = new Uint8Array(lines.length);
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    starts[i] = at;
    at += lines[i]!.length;
    // The line's end: `\n`, or `\r\n`.
    at += text.charCodeAt(at) === 13 ? 2 : 1;
    fenced[i] = kinds[i] === 'closed' ? 1 : kinds[i] === 'open' ? 2 : 0;
  }
  starts[lines.length] = at;
  return { starts, fenced };
}

/** The plan is done: it has items, and none of the blocking ones is open (the Bash rule). */
export function isPlanComplete(view: PlanView): boolean {
  return view.blocking.open === 0 && view.blocking.done + view.optional.done > 0;
}

/** `3/5 done · 1 optional open`: progress in the one meaning every view uses. */
export function describePlanProgress(view: PlanView): string {
  const { blocking, optional } = view;
  const extra = optional.open > 0 ? ` · ${optional.open} optional open` : '';
  return `${blocking.done}/${blocking.open + blocking.done} done${extra}`;
}

type FenceKind = 'closed' | 'open' | undefined;

/** For each line: inside (or the fence lines of) a closed fence, an unclosed one, or neither. */
function findFencedLines(lines: string[]): { kinds: FenceKind[]; unclosedAt: number | null } {
  const kinds: FenceKind[] = new Array(lines.length);
  let start = -1;
  let fence = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (start < 0) {
      const open = FENCE_OPEN.exec(line);
      if (open) [start, fence] = [i, open[1]!];
      continue;
    }
    const close = FENCE_CLOSE.exec(line);
    if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) {
      kinds.fill('closed', start, i + 1);
      start = -1;
    }
  }
  if (start < 0) return { kinds, unclosedAt: null };
  kinds.fill('open', start);
  return { kinds, unclosedAt: start + 1 };
}

function headingTitle(raw: string): string {
  // An ATX heading may close with a run of #s: `## Nice to have ##`.
  return raw.replace(/[ \t]+#+$/, '').trim();
}
