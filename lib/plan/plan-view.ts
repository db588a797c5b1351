// The run's view of the plan (fix_plan.md, or FIX_PLAN_FILE), parsed once where it may have
// changed: when a loop's guards run (the user may edit it between loops) and when the agent
// exits. The steps in between — the exit gate, the loop context, the session record, the
// GitHub comments — read it from memory; each used to parse the file again. The view is checked
// against the plan's memory (plan/plan-memory.ts): open items the agent hid count as open and
// are named in the log, and a plan ralph cannot read in full is open.

import type { PlanView } from './fix-plan.js';
import { checkPlanAgainstMemory, describeHiddenItems, emptyPlanMemory } from './plan-memory.js';
import { readPlanForMemory, savePlanMemory } from './plan-store.js';
import { needsNoCodeChange } from './item-evidence.js';
import { firstCompletions } from './verified-items.js';
import type { Run } from '../loop/run.js';

export function refreshPlanView(run: Run): PlanView | null {
  const read = readPlanForMemory(run.paths, run.config.OPTIONAL_SECTIONS);
  const previous = run.state.planMemory;
  const content = run.state.content;
  // The items open when the run first read the plan: the user's, not ones the agent added since.
  const userItems = run.state.userItems;
  const asksWithAuthority = (key: string): boolean => userItems?.has(key) ?? true;
  const evidence = {
    newContent: content?.lastProgress ?? false,
    changed: content?.lastChanged ?? false,
    controlFiles: content?.lastControlChanged ?? [],
    asksWithAuthority,
  };
  const checked = checkPlanAgainstMemory(previous ?? emptyPlanMemory(), read, evidence);
  run.state.planMemory = checked.memory;
  run.state.userItems ??= new Set(checked.memory.open.map((item) => item.key));
  // Kept beside the ledger: what is open outlives this process (plan-store.ts). A dry run keeps nothing.
  if (!run.config.DRY_RUN) savePlanMemory(run.paths, checked.memory, previous);
  run.state.verificationTicks = checked.hidden
    .filter((h) => h.how === 'ticked without measured change' && needsNoCodeChange(h.text) && asksWithAuthority(h.key))
    .map((h) => h.text);
  run.state.planItemsCompleted = (run.state.planItemsCompleted ?? 0) + firstCompletions(itemsDone(run), checked.completedKeys).length;
  const note =
    'unreadable' in read
      ? `fix_plan.md cannot be read in full (${read.unreadable}): the run cannot end as done until it can`
      : checked.hidden.length > 0
        ? describeHiddenItems(checked.hidden)
        : undefined;
  if (note && note !== run.state.planHiddenNote) run.deps.logger.warn(note);
  run.state.planHiddenNote = note;
  // EXIT_REQUIRES_PLAN_COMPLETE=false restores the Bash tool's reading: the plan as it is now.
  run.state.plan = run.config.EXIT_REQUIRES_PLAN_COMPLETE ? checked.view : 'view' in read ? read.view : null;
  return run.state.plan;
}

/** The items completed in this run so far (their keys): each counts as progress once. */
export function itemsDone(run: Run): Set<string> {
  return (run.state.itemsDone ??= new Set());
}
