// `ralph --status`: the plan items ralph counts as open although fix_plan.md shows them otherwise
// (ticked in a loop with no measured new content, removed, moved under an optional section), as
// the plan's memory beside ralph's ledger holds them, numbered for `ralph --accept-item`.
// Read-only, like the rest of the status.

import { basename } from 'node:path';
import type { ViewConfig } from '../../config/view-config.js';
import { ACCEPT_HINT, type HiddenHow } from '../../plan/plan-memory.js';
import { heldOpenItems } from '../../plan/plan-store.js';

/** One item as `--status --json` shows it under `plan_held_open`. */
export interface HeldPlanItem {
  number: number;
  text: string;
  how: HiddenHow;
}

export function heldPlanItems(view: ViewConfig, warn: (message: string) => void = () => undefined): HeldPlanItem[] {
  return heldOpenItems(view.paths, view.optionalSections, { warn }).held.map((item, i) => ({ number: i + 1, text: item.text, how: item.how }));
}

/** The lines plain `ralph --status` prints for them. */
export function formatHeldItems(held: readonly HeldPlanItem[], planFile: string): string {
  const lines = [
    `Plan items ralph counts as open (${basename(planFile)} shows them otherwise):`,
    ...held.map((item) => `  ${item.number}. ${item.text} (${item.how})`),
    ACCEPT_HINT,
  ];
  return `${lines.join('\n')}\n`;
}
