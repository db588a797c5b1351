// A parallel unit's record as the merge queue finds it when the unit's turn to merge comes: one
// plan item (`Add <slug>`), its branch `ralph/<run>/<slug>` and worktree under .ralph/worktrees/.

import type { UnitRecord } from '../../lib/parallel/run-state.js';

export function mergingUnit(slug: string, runId: string): UnitRecord {
  return {
    slug,
    item: `Add ${slug}`,
    lines: [`- [ ] Add ${slug}`],
    after: [],
    branch: `ralph/${runId}/${slug}`,
    worktree: `.ralph/worktrees/${slug}`,
    state: 'merging',
    loops: 1,
    cost_usd: 0,
    exit_code: null,
    exit_reason: '',
    conflict_passes: 0,
    merge_attempts: 1,
  };
}
