// The completion claims fix_plan.md contradicted, held for one run: how many loops in a row
// (COMPLETION_CONFLICT_LIMIT of them end the run) and the latest, told to the agent in the next
// loop's context. In memory only: the exit gate changes them after it judged a loop.

import { nextConflictCount, type CompletionConflict, type ExitGateResult } from './exit-gate.js';

export class CompletionConflicts {
  #count = 0;
  #last: CompletionConflict | undefined;

  /** Consecutive loops whose completion claim fix_plan.md contradicted. */
  get count(): number {
    return this.#count;
  }

  /** The conflict the exit gate saw in its latest judgement, told to the agent; undefined: none. */
  get last(): CompletionConflict | undefined {
    return this.#last;
  }

  /** The exit gate judged a loop; `progress`: the loop's content was new in this run. */
  note(result: ExitGateResult, progress: boolean): void {
    this.#count = nextConflictCount(this.#count, result, progress);
    this.#last = result.kind === 'continue' ? result.conflict : undefined;
  }
}
