// The run's plan (fix_plan.md, or FIX_PLAN_FILE), held for one run: the plan as last parsed, the
// memory of its open items, and what the run has counted of them. It is read where it may have
// changed: when a loop's guards run (the user may edit it between loops) and when the agent
// exits; each time the file is read, and parsed again only when its text differs from the text
// last read (kept in ralph's memory, never judged by the file's times). The steps in between —
// the exit gate, the loop context, the session record, the GitHub comments — read it from
// memory. The view is checked against the plan's memory (plan/plan-memory.ts): open items the
// agent hid count as open and are named in the log, and a plan ralph cannot read in full is
// open. Only the operations below change what is held.

import type { PlanView } from './fix-plan.js';
import { checkPlanAgainstMemory, describeHiddenItems, emptyPlanMemory, type LoopEvidence, type PlanMemory, type RememberedItem } from './plan-memory.js';
import { readPlanAgain, savePlanMemory, type PlanReading } from './plan-store.js';
import { namesFile, needsNoCodeChange } from './item-evidence.js';
import type { MemoryChange } from './plan-check-delta.js';
import { closeVerifiedItems, describeVerifiedItems, firstCompletions } from './verified-items.js';
import type { RalphPaths } from '../state/paths.js';
import type { Logger } from '../platform/deps.js';

/** Where the plan lives and how the run reads it. */
export interface PlanSetup {
  readonly paths: RalphPaths;
  readonly optionalSections: string[];
  /** EXIT_REQUIRES_PLAN_COMPLETE: the view counts hidden items as open (false: the plan as it is now, as the Bash tool read it). */
  readonly requiresPlanComplete: boolean;
  /** A dry run keeps no memory beside the ledger. */
  readonly dryRun: boolean;
  readonly logger: Pick<Logger, 'warn' | 'success'>;
}

/** What the latest loop measured of the project's content, as evidence for the items it saw ticked. */
export type ContentEvidence = Pick<LoopEvidence, 'newContent' | 'changed' | 'controlFiles'>;

export class RunPlan {
  #view: PlanView | null = null;
  #memory: PlanMemory;
  /** The keys of the open items when the run first read the plan: only they may ask for evidence other than new content. */
  #userItems: Set<string> | undefined;
  /** The keys of the items completed in this run: each counts as progress once. */
  readonly #done = new Set<string>();
  /** Items that need no code change, ticked in the latest loop with no new content: the gate may close them. */
  #ticks: string[] = [];
  /** Items completed (ticked with measured evidence) since the stall guard last looked. */
  #completed = 0;
  #hiddenNote: string | undefined;
  /** The plan as last read: read again each time, parsed again only when its text changed. */
  #reading: PlanReading | undefined;
  /** How many of these open items name each control file asked about. */
  #named: { open: readonly RememberedItem[]; counts: Map<string, number> } | undefined;

  constructor(
    private readonly setup: PlanSetup,
    memory: PlanMemory,
  ) {
    this.#memory = memory;
  }

  /** fix_plan.md as last parsed (null: not read yet, or no plan). */
  get view(): PlanView | null {
    return this.#view;
  }

  /** The open items ralph remembers (hidden ones included). */
  get openItems(): readonly RememberedItem[] {
    return this.#memory.open;
  }

  /** The note about hidden items or an unreadable plan, as last logged; undefined: none. */
  get hiddenNote(): string | undefined {
    return this.#hiddenNote;
  }

  /**
   * Whether an open item ralph remembers names the control file `fileName` (a base name such as
   * `AGENT.md`): asked every loop, counted once for the open items, and then for the items a
   * check changed (when it knows them), not for all of them again.
   */
  openItemsName(fileName: string): boolean {
    const open = this.#memory.open;
    if (this.#named?.open !== open) this.#named = { open, counts: new Map() };
    let count = this.#named.counts.get(fileName);
    if (count === undefined) {
      count = open.filter((item) => namesFile(item.text, fileName)).length;
      this.#named.counts.set(fileName, count);
    }
    return count > 0;
  }

  /** The counts of #named carried from `previous` to `next`, which differ by `change`. */
  #carryNamed(previous: PlanMemory, next: PlanMemory, change: MemoryChange | undefined): void {
    const named = this.#named;
    if (!named || named.open !== previous.open || previous === next) return;
    if (!change) {
      this.#named = undefined;
      return;
    }
    const counts = new Map<string, number>();
    for (const [fileName, count] of named.counts) {
      const names = (text: string) => (namesFile(text, fileName) ? 1 : 0);
      let now = count;
      for (const at of change.drop) now -= names(previous.open[at]!.text);
      for (const [at, text] of change.set) now += names(text) - names(previous.open[at]!.text);
      for (const item of change.add) now += names(item.text);
      counts.set(fileName, now);
    }
    this.#named = { open: next.open, counts };
  }

  /** Items completed since the stall guard last took the count. */
  get completedSinceLook(): number {
    return this.#completed;
  }

  /** Reads the plan again, checks it against the memory, and keeps both; the view as the run reads it. */
  refresh(content: ContentEvidence): PlanView | null {
    const { paths, optionalSections, dryRun, logger } = this.setup;
    this.#reading = readPlanAgain(paths, optionalSections, this.#reading);
    const read = this.#reading.read;
    const previous = this.#memory;
    // The items open when the run first read the plan: the user's, not ones the agent added since.
    const userItems = this.#userItems;
    const asksWithAuthority = (key: string): boolean => userItems?.has(key) ?? true;
    const checked = checkPlanAgainstMemory(previous, read, { ...content, asksWithAuthority });
    this.#memory = checked.memory;
    this.#carryNamed(previous, checked.memory, checked.change);
    this.#userItems ??= new Set(checked.memory.open.map((item) => item.key));
    // Kept beside the ledger: what is open outlives this process (plan-store.ts).
    if (!dryRun) savePlanMemory(paths, checked.memory, previous, checked.change);
    this.#ticks = checked.hidden
      .filter((h) => h.how === 'ticked without measured change' && needsNoCodeChange(h.text) && asksWithAuthority(h.key))
      .map((h) => h.text);
    this.#completed += firstCompletions(this.#done, checked.completedKeys).length;
    const note =
      'unreadable' in read
        ? `fix_plan.md cannot be read in full (${read.unreadable}): the run cannot end as done until it can`
        : checked.hidden.length > 0
          ? describeHiddenItems(checked.hidden)
          : undefined;
    if (note && note !== this.#hiddenNote) logger.warn(note);
    this.#hiddenNote = note;
    this.#view = this.setup.requiresPlanComplete ? checked.view : 'view' in read ? read.view : null;
    return this.#view;
  }

  /** The items the gate may close (ticked with no new content, needing no code change), once: they are forgotten here. */
  takeVerificationTicks(): string[] {
    const ticks = this.#ticks;
    this.#ticks = [];
    return ticks;
  }

  /**
   * The gate passed in the loop that ticked these items: they are done. True when one was done
   * for the first time in the run. The plan is read again, judged by `content`.
   */
  closeVerified(texts: string[], content: ContentEvidence): boolean {
    const previous = this.#memory;
    const closed = closeVerifiedItems(previous, texts);
    if (closed.closedKeys.length === 0) return false;
    this.#memory = closed.memory;
    // Kept beside the ledger, as every change of the memory is: a restart knows they are done.
    savePlanMemory(this.setup.paths, closed.memory, previous);
    this.setup.logger.success(describeVerifiedItems(texts));
    const fresh = firstCompletions(this.#done, closed.closedKeys).length;
    this.#completed += fresh;
    this.refresh(content);
    return fresh > 0;
  }

  /** The stall guard's look: the items completed since its last one, counted from zero again. */
  takeCompleted(): number {
    const completed = this.#completed;
    this.#completed = 0;
    return completed;
  }
}

/** The plan a run starts with: nothing read yet, the memory as loaded from beside the ledger. */
export function newRunPlan(setup: PlanSetup, memory: PlanMemory | undefined): RunPlan {
  return new RunPlan(setup, memory ?? emptyPlanMemory());
}
