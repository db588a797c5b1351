// fix_plan.md as the machine evidence of what is left to do (reference §4.4 item 5): checkbox
// counts, with unchecked items under OPTIONAL_SECTIONS headings not blocking completion (#239).
// Pure: the caller reads the file.

export interface FixPlanSummary {
  /** `- [x]` / `- [X]` items, optional sections included. */
  checked: number;
  /** `- [ ]` items outside optional sections. */
  blockingUnchecked: number;
  /** `- [ ]` items inside optional sections. */
  optionalUnchecked: number;
  /** All `- [ ]` items (the loop context's "Remaining tasks"). */
  totalUnchecked: number;
  /** The text of each blocking unchecked item, in file order. */
  openItems: string[];
}

// Only `- [ ]` and `- [x]`/`- [X]` after optional leading whitespace are checkboxes (#144):
// `* [ ]`, `-[ ]`, `[2026-01-29]`, `[NOTE]`, `[v1.0]`, `[#123]` are not.
const UNCHECKED = /^\s*- \[ \](.*)$/;
const CHECKED = /^\s*- \[[xX]\]/;
const HEADING = /^(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;

export function parseFixPlan(text: string, optionalSections: string[] = []): FixPlanSummary {
  const optional = new Set(optionalSections.map((name) => name.trim().toLowerCase()).filter(Boolean));
  const summary: FixPlanSummary = {
    checked: 0,
    blockingUnchecked: 0,
    optionalUnchecked: 0,
    totalUnchecked: 0,
    openItems: [],
  };
  // Level of the heading that opened the optional section we are in; it covers deeper
  // headings and ends at the next heading of the same or a higher level.
  let optionalLevel: number | null = null;

  for (const line of text.split(/\r?\n/)) {
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1]?.length ?? 1;
      if (optionalLevel !== null && level <= optionalLevel) optionalLevel = null;
      if (optionalLevel === null && optional.has(headingTitle(heading[2] ?? ''))) optionalLevel = level;
      continue;
    }
    const unchecked = UNCHECKED.exec(line);
    if (unchecked) {
      summary.totalUnchecked++;
      if (optionalLevel !== null) {
        summary.optionalUnchecked++;
      } else {
        summary.blockingUnchecked++;
        summary.openItems.push((unchecked[1] ?? '').trim());
      }
    } else if (CHECKED.test(line)) {
      summary.checked++;
    }
  }
  return summary;
}

/** The plan is done: it has items, and none of the blocking ones is unchecked. */
export function isPlanComplete(summary: FixPlanSummary): boolean {
  return summary.blockingUnchecked === 0 && summary.checked + summary.blockingUnchecked > 0;
}

function headingTitle(raw: string): string {
  // An ATX heading may close with a run of #s: `## Nice to have ##`.
  return raw.replace(/[ \t]+#+$/, '').trim().toLowerCase();
}
